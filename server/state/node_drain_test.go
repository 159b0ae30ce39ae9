package state

import (
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

func TestNodeDrainEligibilityAndEvents(t *testing.T) {
	s := testStore(t)
	rec := &recorder{}
	s.SetNotifier(rec)
	if err := s.UpsertNode(1, &structs.Node{ID: "n1", Status: structs.NodeStatusReady}); err != nil {
		t.Fatal(err)
	}
	ds := structs.NewDrainStrategy(structs.DrainSpec{Deadline: time.Hour}, time.Unix(100, 0))
	if err := s.UpdateNodeDrain(2, "n1", ds, false, &structs.NodeEvent{Message: "set"}, 5); err != nil {
		t.Fatal(err)
	}
	n, _ := s.NodeByID(nil, "n1")
	if !n.Drain || n.DrainStrategy == nil || n.SchedulingEligibility != structs.NodeSchedulingIneligible ||
		n.ModifyIndex != 2 || n.Events[0].CreateIndex != 2 {
		t.Fatalf("after drain: %+v", n)
	}
	if err := s.UpdateNodeEligibility(3, "n1", structs.NodeSchedulingEligible, nil, 0); err == nil {
		t.Fatal("eligible while draining accepted")
	}
	// Re-registration keeps the drain.
	if err := s.UpsertNode(4, &structs.Node{ID: "n1", Status: structs.NodeStatusReady}); err != nil {
		t.Fatal(err)
	}
	if n, _ = s.NodeByID(nil, "n1"); n.DrainStrategy == nil || n.SchedulingEligibility != structs.NodeSchedulingIneligible {
		t.Fatalf("re-register dropped the drain: %+v", n)
	}
	before := len(rec.capacity)
	if err := s.UpdateNodeDrain(5, "n1", nil, true, nil, 0); err != nil {
		t.Fatal(err)
	}
	if n, _ = s.NodeByID(nil, "n1"); n.Drain || n.SchedulingEligibility != structs.NodeSchedulingEligible {
		t.Fatalf("after cancel: %+v", n)
	}
	if len(rec.capacity) != before+1 {
		t.Fatal("a node made eligible again must signal capacity")
	}
	for i := 0; i < 15; i++ {
		if err := s.UpdateNodeEligibility(uint64(10+i), "n1", structs.NodeSchedulingIneligible, &structs.NodeEvent{Message: "e"}, 0); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ = s.NodeByID(nil, "n1"); len(n.Events) != maxNodeEvents || n.Events[maxNodeEvents-1].CreateIndex != 24 {
		t.Fatalf("events kept %d, last at %d", len(n.Events), n.Events[len(n.Events)-1].CreateIndex)
	}
	if err := s.UpdateNodeEligibility(30, "nope", structs.NodeSchedulingIneligible, nil, 0); err == nil {
		t.Fatal("unknown node accepted")
	}
}
