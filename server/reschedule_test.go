package server

import (
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// A failed alloc is replaced only after its reschedule delay (2s: a delay
// within 1s of now is rescheduled at once, as in Nomad): the scheduler
// creates a follow-up eval with WaitUntil, the broker holds it until then,
// and its run places the replacement with the reschedule tracker.
func TestFailedAllocRescheduledAfterDelay(t *testing.T) {
	s := testServer(t, nil)
	registerNode(t, s, "n1")
	job := structstest.Job("web")
	job.TaskGroups[0].ReschedulePolicy = &structs.ReschedulePolicy{
		Delay: 2 * time.Second, DelayFunction: structs.RescheduleDelayConstant, Unlimited: true,
	}
	var resp structs.JobRegisterResponse
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: job}, &resp); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "alloc placed", func(st *state.StateStore, ws memdb.WatchSet) bool {
		return len(runningAllocs(st, ws, "web")) == 1
	})
	first := runningAllocs(s.State(), nil, "web")[0]
	failedAt := time.Now()
	update := &structs.Allocation{ID: first.ID, NodeID: "n1", ClientStatus: structs.AllocClientStatusFailed,
		TaskStates: map[string]*structs.TaskState{"t": {State: structs.TaskStateDead, Failed: true, FinishedAt: failedAt}}}
	var gr structs.GenericResponse
	if err := updateAllocsAsNodes(s, []*structs.Allocation{update}, &gr); err != nil {
		t.Fatal(err)
	}

	var followup string
	waitState(t, s, "follow-up eval recorded on the failed alloc", func(st *state.StateStore, ws memdb.WatchSet) bool {
		a, _ := st.AllocByID(ws, first.ID)
		followup = a.FollowupEvalID
		return followup != ""
	})
	ev, _ := s.State().EvalByID(nil, followup)
	if ev == nil || ev.TriggeredBy != structs.EvalTriggerRetryFailedAlloc || !ev.WaitUntil.Equal(failedAt.Add(2*time.Second)) {
		t.Fatalf("follow-up eval %+v", ev)
	}

	var next *structs.Allocation
	waitState(t, s, "replacement after the delay", func(st *state.StateStore, ws memdb.WatchSet) bool {
		if live := runningAllocs(st, ws, "web"); len(live) == 1 {
			next = live[0]
		}
		return next != nil
	})
	if placed := time.Unix(0, next.CreateTime); placed.Before(ev.WaitUntil) {
		t.Fatalf("replacement placed at %v, before %v", placed, ev.WaitUntil)
	}
	rt := next.RescheduleTracker
	if next.PreviousAllocation != first.ID || rt == nil || len(rt.Events) != 1 || rt.Events[0].PrevAllocID != first.ID || rt.Events[0].Delay != 2*time.Second {
		t.Fatalf("replacement %+v tracker %+v", next, rt)
	}
	all, _ := s.State().AllocsByJob(nil, "default", "web")
	if len(all) != 2 {
		t.Fatalf("%d allocs, want the failed one and its replacement", len(all))
	}
}
