package server

import (
	"testing"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// A high-priority job preempts a low-priority batch job on a full node: the
// batch alloc is evicted (recorded on both allocs), the batch job gets a
// preemption eval that blocks, and when the high job stops the batch job is
// placed again (Nomad never replaces preempted batch allocs).
func TestPreemptedBatchJobPlacedAgainWhenCapacityReturns(t *testing.T) {
	s := testServer(t, nil)
	n := structstest.Node("n1")
	n.NodeResources.Cpu.CpuShares = 1000
	if err := s.RPC(structs.NodeRegisterRPC, &structs.NodeRegisterRequest{Node: n}, &structs.NodeUpdateResponse{}); err != nil {
		t.Fatal(err)
	}
	low := structstest.Job("low")
	low.Type, low.Priority = structs.JobTypeBatch, 20
	low.TaskGroups[0].Tasks[0].Resources.CPU = 800
	registerJob(t, s, low)
	waitState(t, s, "low placed", func(st *state.StateStore, ws memdb.WatchSet) bool {
		return len(runningAllocs(st, ws, "low")) == 1
	})
	first := runningAllocs(s.State(), nil, "low")[0]

	high := structstest.Job("high")
	high.Priority = 80
	high.TaskGroups[0].Tasks[0].Resources.CPU = 500
	registerJob(t, s, high)
	var placed *structs.Allocation
	waitState(t, s, "high placed by preemption, low's preemption eval complete and blocked", func(st *state.StateStore, ws memdb.WatchSet) bool {
		if live := runningAllocs(st, ws, "high"); len(live) == 1 {
			placed = live[0]
		}
		evals, _ := st.EvalsByJob(ws, "default", "low")
		blocked, preempted := false, false
		for _, e := range evals {
			blocked = blocked || e.Status == structs.EvalStatusBlocked
			preempted = preempted || (e.TriggeredBy == structs.EvalTriggerPreemption && e.Status == structs.EvalStatusComplete)
		}
		return placed != nil && blocked && preempted
	})
	evicted, _ := s.State().AllocByID(nil, first.ID)
	if evicted.DesiredStatus != structs.AllocDesiredStatusEvict || evicted.PreemptedByAllocation != placed.ID ||
		evicted.DesiredDescription != structs.PreemptedDescription(placed.ID) {
		t.Fatalf("evicted alloc %+v", evicted)
	}
	if len(placed.PreemptedAllocations) != 1 || placed.PreemptedAllocations[0] != first.ID {
		t.Fatalf("preempting alloc lists %v", placed.PreemptedAllocations)
	}
	var dr structs.JobDeregisterResponse
	if err := s.RPC(structs.JobDeregisterRPC, &structs.JobDeregisterRequest{JobID: "high", WriteRequest: structs.WriteRequest{Namespace: "default"}}, &dr); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "low placed again", func(st *state.StateStore, ws memdb.WatchSet) bool {
		return len(runningAllocs(st, ws, "low")) == 1 && len(runningAllocs(st, ws, "high")) == 0
	})
	again := runningAllocs(s.State(), nil, "low")[0]
	if again.ID == first.ID || again.PreviousAllocation != first.ID || again.Name != first.Name {
		t.Fatalf("replacement %+v of %s", again, first.ID)
	}
}

func registerJob(t *testing.T, s *Server, job *structs.Job) {
	t.Helper()
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: job}, &structs.JobRegisterResponse{}); err != nil {
		t.Fatalf("registering %s: %v", job.ID, err)
	}
}
