package server

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/internal/clock/clocktest"
	"github.com/nomadish/nomadish/server/gc"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// runBatchToCompletion registers a one-task batch job, waits for its
// placement on n1, reports it complete as the node and waits for the job
// to be dead with every evaluation terminal. It returns the alloc ID.
func runBatchToCompletion(t *testing.T, s *Server, id string) string {
	t.Helper()
	job := structstest.Job(id)
	job.Type = structs.JobTypeBatch
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: job}, &structs.JobRegisterResponse{}); err != nil {
		t.Fatal(err)
	}
	var allocID string
	waitState(t, s, "batch alloc placed", func(st *state.StateStore, ws memdb.WatchSet) bool {
		allocs := runningAllocs(st, ws, id)
		if len(allocs) == 1 {
			allocID = allocs[0].ID
		}
		return allocID != ""
	})
	upd := &structs.Allocation{ID: allocID, NodeID: "n1", ClientStatus: structs.AllocClientStatusComplete,
		TaskStates: map[string]*structs.TaskState{"t": {State: structs.TaskStateDead}}}
	if err := updateAllocsAsNodes(s, []*structs.Allocation{upd}, &structs.GenericResponse{}); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "batch job dead, its evals terminal", func(st *state.StateStore, ws memdb.WatchSet) bool {
		j, _ := st.JobByID(ws, "default", id)
		evals, _ := st.EvalsByJob(ws, "default", id)
		for _, e := range evals {
			if !e.TerminalStatus() {
				return false
			}
		}
		return j != nil && j.Status == structs.JobStatusDead
	})
	return allocID
}

// TestForcedGCRemovesFinishedBatchJob: System.GarbageCollect removes a
// finished batch job with its evaluations and allocation at once, and
// leaves a running service job, its allocation and the ready node alone.
func TestForcedGCRemovesFinishedBatchJob(t *testing.T) {
	s := testServer(t, nil)
	registerNode(t, s, "n1")
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: structstest.Job("svc")}, &structs.JobRegisterResponse{}); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "service alloc placed", func(st *state.StateStore, ws memdb.WatchSet) bool {
		return len(runningAllocs(st, ws, "svc")) == 1
	})
	allocID := runBatchToCompletion(t, s, "b")

	var reply structs.GenericResponse
	if err := s.RPC(structs.SystemGarbageCollectRPC, &structs.SystemGCRequest{}, &reply); err != nil {
		t.Fatalf("System.GarbageCollect: %v", err)
	}
	st := s.State()
	if j, _ := st.JobByID(nil, "default", "b"); j != nil {
		t.Errorf("finished batch job kept: %s", j.Status)
	}
	if evals, _ := st.EvalsByJob(nil, "default", "b"); len(evals) != 0 {
		t.Errorf("%d evals of the batch job kept", len(evals))
	}
	if a, _ := st.AllocByID(nil, allocID); a != nil {
		t.Error("batch alloc kept")
	}
	if j, _ := st.JobByID(nil, "default", "svc"); j == nil || len(runningAllocs(st, nil, "svc")) != 1 {
		t.Error("the running service job or its alloc was collected")
	}
	if n, _ := st.NodeByID(nil, "n1"); n == nil {
		t.Error("ready node collected")
	}
	if err := s.RPC(structs.SystemReconcileJobSummariesRPC, &structs.SystemGCRequest{}, &reply); err != nil || reply.Index == 0 {
		t.Fatalf("System.ReconcileJobSummaries: index %d, %v", reply.Index, err)
	}
}

// TestGCOnLeaderClock: the leader's periodic collection, on the server's
// clock, purges a finished batch job once job_gc_threshold has passed,
// not before.
func TestGCOnLeaderClock(t *testing.T) {
	clock := clocktest.NewFakeClock()
	s := testServer(t, func(c *Config) {
		c.Clock = clock
		c.GC = gc.Config{Interval: time.Minute, Thresholds: gc.Thresholds{Job: 30 * time.Minute}}
	})
	registerNode(t, s, "n1")
	runBatchToCompletion(t, s, "b")
	done := clock.Now()
	gone := false
	for i := 0; i < 200 && !gone; i++ {
		clock.Advance(time.Minute)
		ws := memdb.NewWatchSet()
		j, _ := s.State().JobByID(ws, "default", "b")
		if gone = j == nil; !gone {
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			_ = ws.WatchCtx(ctx)
			cancel()
		}
	}
	if !gone {
		t.Fatalf("the batch job finished at %v is still there at %v", done, clock.Now())
	}
	if clock.Now().Before(done.Add(30 * time.Minute)) {
		t.Fatalf("collected at %v, before the threshold (finished %v)", clock.Now(), done)
	}
}
