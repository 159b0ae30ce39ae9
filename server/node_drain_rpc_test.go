package server

import (
	"errors"
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

func TestUpdateEligibilityAndDrainEndpoints(t *testing.T) {
	s := testServer(t, nil)
	registerNode(t, s, "n1")
	var reply structs.NodeDrainUpdateResponse

	err := s.RPC(structs.NodeUpdateEligibilityRPC, &structs.NodeUpdateEligibilityRequest{NodeID: "nope", Eligibility: "eligible"}, &reply)
	if code, _ := structs.ErrorCode(err); code != structs.ErrCodeNotFound {
		t.Fatalf("unknown node: %v", err)
	}
	err = s.RPC(structs.NodeUpdateEligibilityRPC, &structs.NodeUpdateEligibilityRequest{NodeID: "n1", Eligibility: "maybe"}, &reply)
	if code, _ := structs.ErrorCode(err); code != structs.ErrCodeBadRequest {
		t.Fatalf("bad eligibility: %v", err)
	}
	if err := s.RPC(structs.NodeUpdateEligibilityRPC, &structs.NodeUpdateEligibilityRequest{NodeID: "n1", Eligibility: "ineligible"}, &reply); err != nil {
		t.Fatal(err)
	}
	n, _ := s.State().NodeByID(nil, "n1")
	if n.SchedulingEligibility != structs.NodeSchedulingIneligible || n.Events[len(n.Events)-1].Message != structs.NodeEventIneligible {
		t.Fatalf("after ineligible: %s %+v", n.SchedulingEligibility, n.Events)
	}

	spec := &structs.DrainStrategy{DrainSpec: structs.DrainSpec{Deadline: time.Hour}}
	before := time.Now()
	if err := s.RPC(structs.NodeUpdateDrainRPC, &structs.NodeUpdateDrainRequest{NodeID: "n1", DrainStrategy: spec, Meta: map[string]string{"why": "kernel"}}, &reply); err != nil {
		t.Fatal(err)
	}
	n, _ = s.State().NodeByID(nil, "n1")
	if n.DrainStrategy != nil { // no allocations: the drainer may already have completed it
		if n.DrainStrategy.ForceDeadline.Before(before.Add(time.Hour)) || !n.Drain {
			t.Fatalf("strategy %+v drain=%v", n.DrainStrategy, n.Drain)
		}
	}
	if n.SchedulingEligibility != structs.NodeSchedulingIneligible {
		t.Fatalf("draining node eligibility %q", n.SchedulingEligibility)
	}
	// Re-registration (a client restart) keeps what the servers own.
	registerNode(t, s, "n1")
	if again, _ := s.State().NodeByID(nil, "n1"); again.SchedulingEligibility != structs.NodeSchedulingIneligible || len(again.Events) < 2 {
		t.Fatalf("re-register lost server fields: %s %d events", again.SchedulingEligibility, len(again.Events))
	}
	if err := s.RPC(structs.NodeUpdateDrainRPC, &structs.NodeUpdateDrainRequest{NodeID: "n1", MarkEligible: true}, &reply); err != nil {
		t.Fatal(err)
	}
	n, _ = s.State().NodeByID(nil, "n1")
	if n.DrainStrategy != nil || n.Drain || n.SchedulingEligibility != structs.NodeSchedulingEligible {
		t.Fatalf("after cancel: %+v drain=%v %s", n.DrainStrategy, n.Drain, n.SchedulingEligibility)
	}
}

func TestEligibleRefusedWhileDraining(t *testing.T) {
	s := testServer(t, nil)
	registerNode(t, s, "n1")
	job := structstest.Job("web")
	var jr structs.JobRegisterResponse
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: job}, &jr); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "1 alloc", func(st *state.StateStore, ws memdb.WatchSet) bool { return len(runningAllocs(st, ws, "web")) == 1 })
	// A batch-free service alloc that never turns healthy keeps the drain
	// going (no other node to migrate to either).
	var reply structs.NodeDrainUpdateResponse
	spec := &structs.DrainStrategy{DrainSpec: structs.DrainSpec{Deadline: time.Hour}}
	if err := s.RPC(structs.NodeUpdateDrainRPC, &structs.NodeUpdateDrainRequest{NodeID: "n1", DrainStrategy: spec}, &reply); err != nil {
		t.Fatal(err)
	}
	err := s.RPC(structs.NodeUpdateEligibilityRPC, &structs.NodeUpdateEligibilityRequest{NodeID: "n1", Eligibility: "eligible"}, &reply)
	var ce *structs.CodedError
	if !errors.As(err, &ce) || ce.Code != structs.ErrCodeBadRequest {
		t.Fatalf("eligible while draining: %v", err)
	}
}

// TestForcedDrainMovesAllocs drains a node with -force: the drainer marks
// every alloc, the scheduler replaces them on the other node, and the drain
// completes with the node left ineligible.
func TestForcedDrainMovesAllocs(t *testing.T) {
	s := testServer(t, nil)
	registerNode(t, s, "n1")
	job := structstest.Job("web")
	job.TaskGroups[0].Count = 2
	var jr structs.JobRegisterResponse
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: job}, &jr); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "2 allocs on n1", func(st *state.StateStore, ws memdb.WatchSet) bool { return len(runningAllocs(st, ws, "web")) == 2 })
	registerNode(t, s, "n2")
	var reply structs.NodeDrainUpdateResponse
	spec := &structs.DrainStrategy{DrainSpec: structs.DrainSpec{Deadline: structs.DrainDeadlineForceImmediately}}
	if err := s.RPC(structs.NodeUpdateDrainRPC, &structs.NodeUpdateDrainRequest{NodeID: "n1", DrainStrategy: spec}, &reply); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "allocs moved to n2 and drain complete", func(st *state.StateStore, ws memdb.WatchSet) bool {
		live := runningAllocs(st, ws, "web")
		for _, a := range live {
			if a.NodeID != "n2" {
				return false
			}
		}
		n, _ := st.NodeByID(ws, "n1")
		return len(live) == 2 && n.DrainStrategy == nil && n.Events[len(n.Events)-1].Message == structs.NodeEventDrainComplete
	})
	allocs, _ := s.State().AllocsByNode(nil, "n1")
	for _, a := range allocs {
		if a.DesiredDescription != structs.AllocDescriptionMigrating || !a.DesiredTransition.ShouldMigrate() {
			t.Fatalf("alloc on n1: %q %+v", a.DesiredDescription, a.DesiredTransition)
		}
	}
	if n, _ := s.State().NodeByID(nil, "n1"); n.SchedulingEligibility != structs.NodeSchedulingIneligible {
		t.Fatalf("drained node eligibility %q", n.SchedulingEligibility)
	}
}
