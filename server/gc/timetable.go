package gc

import (
	"sort"
	"time"
)

// TimeTable maps raft indexes to the times the leader saw them, for the
// objects that carry an index but no time (deployments). It is the
// leader's memory only: a new leader starts empty, and an index it cannot
// date is treated as not old enough (see Collect). Entries are witnessed
// in increasing order; the table keeps at most limit of them, dropping the
// oldest. Not safe for concurrent use: the collector goroutine owns it.
type TimeTable struct {
	limit   int
	entries []witness // increasing index and time
}

type witness struct {
	index uint64
	at    time.Time
}

// NewTimeTable returns an empty table keeping at most limit entries
// (<= 0: 1024).
func NewTimeTable(limit int) *TimeTable {
	if limit <= 0 {
		limit = 1024
	}
	return &TimeTable{limit: limit}
}

// Witness records that index was the latest at t. Indexes or times going
// backwards are ignored.
func (tt *TimeTable) Witness(index uint64, t time.Time) {
	if n := len(tt.entries); n > 0 {
		last := tt.entries[n-1]
		if index < last.index || t.Before(last.at) {
			return
		}
		if index == last.index {
			return
		}
	}
	tt.entries = append(tt.entries, witness{index, t})
	if len(tt.entries) > tt.limit {
		tt.entries = append(tt.entries[:0], tt.entries[len(tt.entries)-tt.limit:]...)
	}
}

// IndexAt returns the latest index witnessed at or before t, and false
// when none was (the table does not reach back to t).
func (tt *TimeTable) IndexAt(t time.Time) (uint64, bool) {
	if tt == nil {
		return 0, false
	}
	i := sort.Search(len(tt.entries), func(i int) bool { return tt.entries[i].at.After(t) })
	if i == 0 {
		return 0, false
	}
	return tt.entries[i-1].index, true
}
