package endpoints

import (
	"context"
	"errors"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// Blocking query bounds.
const (
	defaultMaxQueryTime = 5 * time.Minute
	maxMaxQueryTime     = 10 * time.Minute
)

// queryFn runs one read against st, adding what it reads to ws (nil for a
// query declared with blockingList: it must not add per-object channels),
// and fills the reply; it returns the index the reply reflects.
type queryFn func(ws memdb.WatchSet, st *state.StateSnapshot) (index uint64, err error)

// blockingRPC runs a read of one object, and when opts.MinQueryIndex is set,
// runs it again each time what it read changes, until the index passes
// MinQueryIndex or MaxQueryTime (default 5 min) elapses; then it returns the
// latest answer. run must add O(1) channels to ws (one object's, one
// prefix iterator's): lists go through blockingList. meta.Index is never 0
// (a client blocking on 0 would spin).
func (d *Deps) blockingRPC(opts *structs.QueryOptions, meta *structs.QueryMeta, run queryFn) error {
	return d.blocking(opts, meta, nil, run)
}

// blockingList is blockingRPC for a query whose index is at most the
// highest index of tables (every list, and reads of many objects). It
// checks the tables' indexes first and waits on their index-table rows
// without running the query while they are at or below MinQueryIndex, so
// a waiter costs a few channels and no copy of the answer however large
// the tables are; it runs run (with a nil ws) only once something changed,
// and once more when the wait times out.
func (d *Deps) blockingList(opts *structs.QueryOptions, meta *structs.QueryMeta, tables []string, run queryFn) error {
	return d.blocking(opts, meta, tables, run)
}

// blocking is blockingRPC (tables nil) and blockingList.
func (d *Deps) blocking(opts *structs.QueryOptions, meta *structs.QueryMeta, tables []string, run queryFn) error {
	if !opts.AllowStale && !d.WaitForLeader() {
		return structs.ErrNoLeader
	}
	ctx := context.Background()
	if opts.MinQueryIndex > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, queryWait(opts.MaxQueryTime))
		defer cancel()
	}
	timedOut := false
	for {
		// One MVCC snapshot per run: every read of the query, and the table
		// index it reports, see the same state (reading the live store
		// twice could pair an empty list with the index of the write that
		// filled it). Watch channels of a snapshot's nodes still fire when
		// the live store changes them.
		live := d.State()
		snap := live.Snapshot()
		ws := memdb.NewWatchSet()
		ws.Add(live.AbandonCh())
		ws.Add(d.Shutdown)
		runWS := ws
		if tables != nil {
			runWS = nil
			latest, err := snap.WatchTables(ws, tables...)
			if err != nil {
				return err
			}
			if opts.MinQueryIndex > 0 && latest <= opts.MinQueryIndex && !timedOut {
				if timedOut, err = d.waitQuery(ctx, ws); err != nil {
					return err
				}
				continue
			}
		}
		index, err := run(runWS, snap)
		if err != nil {
			return err
		}
		meta.Index = max(index, 1)
		meta.KnownLeader = d.Leader() != ""
		meta.LastContact = d.LastContact()
		if opts.MinQueryIndex == 0 || meta.Index > opts.MinQueryIndex || timedOut {
			return nil
		}
		if timedOut, err = d.waitQuery(ctx, ws); err != nil || (timedOut && tables == nil) {
			return err // timed out: answer with what we have
		}
	}
}

// queryWait is how long a blocking query may wait: MaxQueryTime, the
// default when unset, at most maxMaxQueryTime.
func queryWait(d time.Duration) time.Duration {
	if d <= 0 {
		return defaultMaxQueryTime
	}
	return min(d, maxMaxQueryTime)
}

// waitQuery waits for ws to fire or ctx to end; it reports whether the
// query's time is up (ctx's deadline passed or the server is shutting
// down: answer with the latest state).
func (d *Deps) waitQuery(ctx context.Context, ws memdb.WatchSet) (bool, error) {
	if err := ws.WatchCtx(ctx); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return true, nil
		}
		return false, err
	}
	select {
	case <-d.Shutdown:
		return true, nil
	default:
		return false, nil
	}
}

// tableIndex returns the highest index among tables.
func tableIndex(st *state.StateSnapshot, tables ...string) (uint64, error) {
	var max uint64
	for _, t := range tables {
		i, err := st.Index(t)
		if err != nil {
			return 0, err
		}
		if i > max {
			max = i
		}
	}
	return max, nil
}

// namespaceOf returns the request's namespace, "default" when empty.
func namespaceOf(ns string) string {
	if ns == "" {
		return "default"
	}
	return ns
}
