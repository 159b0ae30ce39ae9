package server

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

// queryFn runs one read against st, adding what it reads to ws, and fills
// the reply; it returns the index the reply reflects.
type queryFn func(ws memdb.WatchSet, st *state.StateSnapshot) (index uint64, err error)

// blockingRPC runs a read, and when opts.MinQueryIndex is set, runs it again
// each time what it read changes, until the index passes MinQueryIndex or
// MaxQueryTime (default 5 min) elapses; then it returns the latest answer.
// meta.Index is never 0 (a client blocking on 0 would spin).
func (s *Server) blockingRPC(opts *structs.QueryOptions, meta *structs.QueryMeta, run queryFn) error {
	if !opts.AllowStale && !s.waitForLeaderDuties() {
		return structs.ErrNoLeader
	}
	ctx := context.Background()
	if opts.MinQueryIndex > 0 {
		wait := opts.MaxQueryTime
		if wait <= 0 {
			wait = defaultMaxQueryTime
		}
		if wait > maxMaxQueryTime {
			wait = maxMaxQueryTime
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, wait)
		defer cancel()
	}
	for {
		// One MVCC snapshot per run: every read of the query, and the table
		// index it reports, see the same state (reading the live store
		// twice could pair an empty list with the index of the write that
		// filled it). Watch channels of a snapshot's nodes still fire when
		// the live store changes them.
		live := s.State()
		ws := memdb.NewWatchSet()
		ws.Add(live.AbandonCh())
		ws.Add(s.shutdownCh)
		index, err := run(ws, live.Snapshot())
		if err != nil {
			return err
		}
		meta.Index = max(index, 1)
		meta.KnownLeader = s.Leader() != ""
		meta.LastContact = s.lastContact()
		if opts.MinQueryIndex == 0 || meta.Index > opts.MinQueryIndex {
			return nil
		}
		if err := ws.WatchCtx(ctx); err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				return nil // timed out: answer with what we have
			}
			return err
		}
		select {
		case <-s.shutdownCh:
			return nil
		default:
		}
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
