package server

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

func registerNode(t *testing.T, s *Server, id string) *structs.NodeUpdateResponse {
	t.Helper()
	var resp structs.NodeUpdateResponse
	if err := s.RPC(structs.NodeRegisterRPC, &structs.NodeRegisterRequest{Node: structstest.Node(id)}, &resp); err != nil {
		t.Fatalf("Node.Register: %v", err)
	}
	return &resp
}

// waitState waits, on state watch sets (no polling), until cond holds.
func waitState(t *testing.T, s *Server, what string, cond func(st *state.StateStore, ws memdb.WatchSet) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		ws := memdb.NewWatchSet()
		st := s.State()
		ws.Add(st.AbandonCh())
		if cond(st, ws) {
			return
		}
		if err := ws.WatchCtx(ctx); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
	}
}

func runningAllocs(st *state.StateStore, ws memdb.WatchSet, jobID string) []*structs.Allocation {
	allocs, _ := st.AllocsByJob(ws, "default", jobID)
	var out []*structs.Allocation
	for _, a := range allocs {
		if !a.TerminalStatus() {
			out = append(out, a)
		}
	}
	return out
}

func TestEndToEndPlacement(t *testing.T) {
	s := testServer(t, nil)
	reg := registerNode(t, s, "n1")
	if reg.HeartbeatTTL < structs.MinHeartbeatTTL {
		t.Fatalf("ttl %v", reg.HeartbeatTTL)
	}
	job := structstest.Job("web")
	job.TaskGroups[0].Count = 3
	var resp structs.JobRegisterResponse
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: job}, &resp); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "3 allocs placed and eval complete", func(st *state.StateStore, ws memdb.WatchSet) bool {
		ev, _ := st.EvalByID(ws, resp.EvalID)
		return len(runningAllocs(st, ws, "web")) == 3 && ev != nil && ev.Status == structs.EvalStatusComplete
	})
	j, _ := s.State().JobByID(nil, "default", "web")
	if j.Status != structs.JobStatusRunning {
		t.Fatalf("job status %s", j.Status)
	}

	// The client sees its allocations through a blocking query.
	var ca structs.NodeClientAllocsResponse
	if err := s.RPC(structs.NodeGetClientAllocsRPC, &structs.NodeSpecificRequest{NodeID: "n1", SecretID: "secret-n1"}, &ca); err != nil || len(ca.Allocs) != 3 {
		t.Fatalf("GetClientAllocs: %v %v", ca.Allocs, err)
	}
	var bad structs.NodeClientAllocsResponse
	err := s.RPC(structs.NodeGetClientAllocsRPC, &structs.NodeSpecificRequest{NodeID: "n1", SecretID: "wrong"}, &bad)
	if code, _ := structs.ErrorCode(err); code != structs.ErrCodeNodeAuth {
		t.Fatalf("bad secret: %v", err)
	}

	// One alloc fails, longer ago than the reschedule delay (service
	// default 30s): a replacement is placed at once.
	allocs := runningAllocs(s.State(), nil, "web")
	failed := &structs.Allocation{ID: allocs[0].ID, NodeID: "n1", ClientStatus: structs.AllocClientStatusFailed,
		TaskStates: map[string]*structs.TaskState{"t": {State: structs.TaskStateDead, Failed: true, FinishedAt: time.Now().Add(-time.Hour)}}}
	var gr structs.GenericResponse
	if err := updateAllocsAsNodes(s, []*structs.Allocation{failed}, &gr); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "replacement alloc", func(st *state.StateStore, ws memdb.WatchSet) bool {
		all, _ := st.AllocsByJob(ws, "default", "web")
		return len(all) == 4 && len(runningAllocs(st, ws, "web")) == 3
	})
	evals, _ := s.State().EvalsByJob(nil, "default", "web")
	found := false
	for _, e := range evals {
		found = found || e.TriggeredBy == structs.EvalTriggerRetryFailedAlloc
	}
	if !found {
		t.Fatal("no alloc-failure eval")
	}

	// Stopping the job stops its allocations; the job ends dead.
	var dresp structs.JobDeregisterResponse
	if err := s.RPC(structs.JobDeregisterRPC, &structs.JobDeregisterRequest{JobID: "web"}, &dresp); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "job dead", func(st *state.StateStore, ws memdb.WatchSet) bool {
		j, _ := st.JobByID(ws, "default", "web")
		return len(runningAllocs(st, ws, "web")) == 0 && j.Status == structs.JobStatusDead
	})
}

func TestBlockedEvalUnblockedByNewNode(t *testing.T) {
	s := testServer(t, nil)
	var resp structs.JobRegisterResponse
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: structstest.Job("web")}, &resp); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "blocked eval", func(st *state.StateStore, ws memdb.WatchSet) bool {
		evals, _ := st.EvalsByJob(ws, "default", "web")
		for _, e := range evals {
			if e.Status == structs.EvalStatusBlocked {
				return true
			}
		}
		return false
	})
	registerNode(t, s, "n1")
	waitState(t, s, "alloc placed after node joined", func(st *state.StateStore, ws memdb.WatchSet) bool {
		return len(runningAllocs(st, ws, "web")) == 1
	})
}

func TestBatchJobCompletesAndClientWatch(t *testing.T) {
	s := testServer(t, nil)
	registerNode(t, s, "n1")
	// The client's watch: an empty answer first, then a blocking query
	// that returns when an alloc is placed.
	var first structs.NodeClientAllocsResponse
	req := &structs.NodeSpecificRequest{NodeID: "n1", SecretID: "secret-n1"}
	if err := s.RPC(structs.NodeGetClientAllocsRPC, req, &first); err != nil || len(first.Allocs) != 0 {
		t.Fatalf("first watch: %v %v", first.Allocs, err)
	}
	watched := make(chan *structs.NodeClientAllocsResponse, 1)
	go func() {
		var r structs.NodeClientAllocsResponse
		breq := &structs.NodeSpecificRequest{NodeID: "n1", SecretID: "secret-n1",
			QueryOptions: structs.QueryOptions{MinQueryIndex: first.Index, MaxQueryTime: time.Minute}}
		if err := s.RPC(structs.NodeGetClientAllocsRPC, breq, &r); err != nil {
			t.Error(err)
		}
		watched <- &r
	}()
	job := structstest.Job("batch")
	job.Type = structs.JobTypeBatch
	var resp structs.JobRegisterResponse
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: job}, &resp); err != nil {
		t.Fatal(err)
	}
	w := <-watched
	if len(w.Allocs) != 1 || w.Index <= first.Index {
		t.Fatalf("blocking watch: %+v", w)
	}
	var allocID string
	var allocIndex uint64
	for id, idx := range w.Allocs {
		allocID, allocIndex = id, idx
	}
	var got structs.AllocsGetResponse
	if err := s.RPC(structs.AllocGetAllocsRPC, &structs.AllocsGetRequest{AllocIDs: []string{allocID, "nope"}}, &got); err != nil || len(got.Allocs) != 1 || got.Allocs[0].Job == nil {
		t.Fatalf("Alloc.GetAllocs: %+v %v", got.Allocs, err)
	}
	// The client reports running, then complete: the batch job is dead and
	// the client's own reports did not change AllocModifyIndex.
	for _, status := range []string{structs.AllocClientStatusRunning, structs.AllocClientStatusComplete} {
		upd := &structs.Allocation{ID: allocID, NodeID: "n1", ClientStatus: status,
			TaskStates: map[string]*structs.TaskState{"t": {State: structs.TaskStateRunning}}}
		var gr structs.GenericResponse
		if err := updateAllocsAsNodes(s, []*structs.Allocation{upd}, &gr); err != nil || gr.Index == 0 {
			t.Fatalf("Node.UpdateAlloc: %v", err)
		}
	}
	waitState(t, s, "batch job dead", func(st *state.StateStore, ws memdb.WatchSet) bool {
		j, _ := st.JobByID(ws, "default", "batch")
		return j.Status == structs.JobStatusDead
	})
	a, _ := s.State().AllocByID(nil, allocID)
	if a.ClientStatus != structs.AllocClientStatusComplete || a.AllocModifyIndex != allocIndex || a.TaskStates["t"] == nil {
		t.Fatalf("alloc after reports: %+v", a)
	}
	var ga structs.SingleAllocResponse
	if err := s.RPC(structs.AllocGetAllocRPC, &structs.AllocSpecificRequest{AllocID: allocID}, &ga); err != nil || ga.Alloc == nil {
		t.Fatalf("Alloc.GetAlloc: %v", err)
	}
	var ea structs.EvalAllocationsResponse
	if err := s.RPC(structs.EvalAllocationsRPC, &structs.EvalSpecificRequest{EvalID: resp.EvalID}, &ea); err != nil || len(ea.Allocations) != 1 {
		t.Fatalf("Eval.Allocations: %v %v", ea.Allocations, err)
	}
	var ja structs.JobAllocationsResponse
	if err := s.RPC(structs.JobAllocationsRPC, &structs.JobSpecificRequest{JobID: "batch"}, &ja); err != nil || len(ja.Allocations) != 1 {
		t.Fatalf("Job.Allocations: %v %v", ja.Allocations, err)
	}
	var gn structs.SingleNodeResponse
	if err := s.RPC(structs.NodeGetNodeRPC, &structs.NodeSpecificRequest{NodeID: "n1"}, &gn); err != nil || gn.Node == nil {
		t.Fatalf("Node.GetNode: %v", err)
	}
}
