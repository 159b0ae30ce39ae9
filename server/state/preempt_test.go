package state

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// Committing a preemption evicts the alloc with its preempting alloc's ID,
// keeps the client's newer status, stores the new alloc's list and writes
// the preempted job's eval (the broker gets it), all at one index.
func TestUpsertPlanResultsPreemption(t *testing.T) {
	s := testStore(t)
	rec := &recorder{}
	s.SetNotifier(rec)
	low, high := testJob("low"), testJob("high")
	low.Priority, high.Priority = 20, 80
	if err := s.UpsertJob(1, low, nil); err != nil {
		t.Fatal(err)
	}
	old := testAlloc(low, "n1", "e0")
	if err := s.UpsertAllocs(2, []*structs.Allocation{old}); err != nil {
		t.Fatal(err)
	}
	stale := *old // the scheduler's copy: pending
	done := *old
	done.ClientStatus = structs.AllocClientStatusComplete
	if err := s.UpdateAllocsFromClient(3, []*structs.Allocation{&done}, nil); err != nil {
		t.Fatal(err)
	}

	plan := structs.NewPlan(&structs.Evaluation{ID: "e1"}, high)
	placed := testAlloc(high, "n1", "e1")
	plan.AppendPreemptedAlloc(&stale, placed.ID)
	placed.PreemptedAllocations = []string{old.ID}
	req := &structs.ApplyPlanResultsRequest{
		Job: high, EvalID: "e1", AllocsPlaced: []*structs.Allocation{placed},
		AllocsPreempted: plan.NodePreemptions["n1"], UpdatedAt: 42,
	}
	req.Evals = structs.PreemptionEvals(req.AllocsPreempted, req.UpdatedAt)
	if err := s.UpsertPlanResults(4, req); err != nil {
		t.Fatal(err)
	}
	got, _ := s.AllocByID(nil, old.ID)
	if got.DesiredStatus != structs.AllocDesiredStatusEvict || got.PreemptedByAllocation != placed.ID ||
		got.DesiredDescription != "Preempted by alloc ID "+placed.ID || got.ClientStatus != structs.AllocClientStatusComplete ||
		got.ModifyIndex != 4 || got.ModifyTime != 42 {
		t.Fatalf("evicted alloc %+v", got)
	}
	p, _ := s.AllocByID(nil, placed.ID)
	if len(p.PreemptedAllocations) != 1 || p.PreemptedAllocations[0] != old.ID {
		t.Fatalf("placed alloc %+v", p)
	}
	evals, _ := s.EvalsByJob(nil, "default", "low")
	if len(evals) != 1 || evals[0].TriggeredBy != structs.EvalTriggerPreemption || evals[0].Priority != 20 {
		t.Fatalf("evals of low %+v", evals)
	}
	if len(rec.evals) != 1 || len(rec.capacity) == 0 {
		t.Fatalf("notified evals %d, capacity %v", len(rec.evals), rec.capacity)
	}
}

// An alloc updated in place to a lower job priority may now be preempted by
// a blocked job: the write counts as a capacity change.
func TestPriorityDropIsCapacityChange(t *testing.T) {
	s := testStore(t)
	rec := &recorder{}
	s.SetNotifier(rec)
	job := testJob("web")
	job.Priority = 80
	a := testAlloc(job, "n1", "e1")
	if err := s.UpsertAllocs(1, []*structs.Allocation{a}); err != nil {
		t.Fatal(err)
	}
	same := *a
	if err := s.UpsertAllocs(2, []*structs.Allocation{&same}); err != nil {
		t.Fatal(err)
	}
	lower := *a
	lower.Job = job.Copy()
	lower.Job.Priority = 20
	if err := s.UpsertAllocs(3, []*structs.Allocation{&lower}); err != nil {
		t.Fatal(err)
	}
	if len(rec.capacity) != 1 || rec.capacity[0] != 3 {
		t.Fatalf("capacity changes at %v, want [3]", rec.capacity)
	}
}
