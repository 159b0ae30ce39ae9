package server

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/nomadish/nomadish/server/gc"
	"github.com/nomadish/nomadish/structs"
)

// gcState serializes the leader's garbage collections (the periodic one
// and those forced by System.GarbageCollect) and owns the time table that
// dates deployments. Guarded by mu; the table outlives leadership terms
// (what it witnessed stays true).
type gcState struct {
	mu    sync.Mutex
	times *gc.TimeTable
}

// runGC is the leader duty that collects garbage every job_gc_interval on
// the server's clock, until ctx ends (leadership lost or shutdown).
func (s *Server) runGC(ctx context.Context) {
	cfg := s.cfg.GC.WithDefaults()
	for {
		fire := make(chan struct{}, 1)
		t := s.cfg.Clock.AfterFunc(cfg.Interval, func() { fire <- struct{}{} })
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-fire:
		}
		r, err := s.collectGarbage(ctx, cfg.Thresholds, cfg.BatchSize)
		if err != nil {
			s.logger.Error("garbage collection", "error", err)
		}
		if r != nil && r.Jobs+r.Evals+r.Allocs+r.Deployments+r.Nodes >= releaseAfter {
			debug.FreeOSMemory() // gc_release.go
		}
	}
}

// forceGC runs one collection at once with every threshold at zero (Nomad's
// System.GarbageCollect): everything finished goes, within the re-checks
// of the reap entry. It runs on the calling RPC goroutine, on the leader.
func (s *Server) forceGC() (*structs.GCReapResponse, error) {
	if _, ok := s.leader.ready(); !ok {
		return nil, structs.ErrNoLeader
	}
	r, err := s.collectGarbage(context.Background(), gc.Thresholds{}, s.cfg.GC.WithDefaults().BatchSize)
	if err == nil {
		debug.FreeOSMemory() // gc_release.go
	}
	return r, err
}

// collectGarbage decides on a snapshot what to delete under th and
// commits it through raft in entries of at most batch objects, stopping
// early when ctx ends. It returns what the entries deleted.
func (s *Server) collectGarbage(ctx context.Context, th gc.Thresholds, batch int) (*structs.GCReapResponse, error) {
	s.gc.mu.Lock()
	defer s.gc.mu.Unlock()
	if s.gc.times == nil {
		s.gc.times = gc.NewTimeTable(0)
	}
	snap := s.State().Snapshot()
	now := s.cfg.Clock.Now()
	idx, err := snap.LatestIndex(nil)
	if err != nil {
		return nil, fmt.Errorf("reading the state index: %w", err)
	}
	s.gc.times.Witness(idx, now)
	in := gc.Input{Times: s.gc.times}
	if in.Jobs, err = snap.Jobs(nil, "*"); err == nil {
		if in.Evals, err = snap.Evals(nil); err == nil {
			if in.Allocs, err = snap.Allocs(nil); err == nil {
				if in.Deployments, err = snap.Deployments(nil, "*"); err == nil {
					in.Nodes, err = snap.Nodes(nil)
				}
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("reading the state to collect: %w", err)
	}
	res := gc.Collect(in, now, th)
	if s.logger.IsDebug() && len(res.Victims) > 0 {
		reasons := map[string]int{}
		for _, v := range res.Victims {
			reasons[v.Reason]++
		}
		s.logger.Debug("garbage collection chose", "reasons", reasons)
	}
	total := &structs.GCReapResponse{}
	start := time.Now()
	for _, req := range res.Batches(batch) {
		if ctx.Err() != nil {
			break
		}
		_, resp, err := s.raftApply(structs.GCReapRequestType, req)
		if err != nil {
			return total, fmt.Errorf("committing a GC reap of %d objects: %w", req.Size(), err)
		}
		if r, ok := resp.(*structs.GCReapResponse); ok {
			total.Jobs += r.Jobs
			total.Evals += r.Evals
			total.Allocs += r.Allocs
			total.Deployments += r.Deployments
			total.Nodes += r.Nodes
		}
	}
	if len(res.Victims) > 0 {
		s.logger.Info("garbage collected", "jobs", total.Jobs, "evals", total.Evals, "allocs", total.Allocs,
			"deployments", total.Deployments, "nodes", total.Nodes, "took", time.Since(start))
	}
	return total, nil
}
