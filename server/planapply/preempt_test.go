package planapply_test

import (
	"context"
	"testing"

	"github.com/nomadish/nomadish/server/planapply/planapplytest"
	"github.com/nomadish/nomadish/structs"
)

// lowAlloc is a running alloc of a priority-20 batch job.
func lowAlloc(id, jobID, node string, cpu int64) *structs.Allocation {
	a := planapplytest.Alloc(id, node, cpu, 100)
	a.JobID = jobID
	a.Job = &structs.Job{ID: jobID, Namespace: "default", Type: structs.JobTypeBatch, Priority: 20, JobModifyIndex: 7}
	return a
}

// A committed preemption evicts the allocs and creates one pending eval
// (TriggeredBy "preemption") per job that lost allocs, in the same commit.
func TestPreemptionCommitsEvalsForPreemptedJobs(t *testing.T) {
	store := planapplytest.NewStore()
	store.UpsertNode(planapplytest.Node("n1", 1000, 1000))
	low1, low2 := lowAlloc("l1", "low", "n1", 400), lowAlloc("l2", "low", "n1", 400)
	store.UpsertAlloc(low1)
	store.UpsertAlloc(low2)
	a := start(t, store)

	p := newPlan("e1", 90)
	high := planapplytest.Alloc("high", "n1", 900, 100)
	p.AppendPreemptedAlloc(low1, high.ID)
	p.AppendPreemptedAlloc(low2, high.ID)
	high.PreemptedAllocations = []string{low1.ID, low2.ID}
	p.AppendAlloc(high)
	res, err := a.Submit(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if res.RefreshIndex != 0 || len(res.NodePreemptions["n1"]) != 2 {
		t.Fatalf("result %+v", res)
	}
	req := store.Commits()[0]
	if len(req.AllocsPreempted) != 2 || req.AllocsPreempted[0].PreemptedByAllocation != "high" {
		t.Fatalf("preempted %+v", req.AllocsPreempted)
	}
	if len(req.Evals) != 1 {
		t.Fatalf("want one eval for job low, got %d", len(req.Evals))
	}
	e := req.Evals[0]
	if e.JobID != "low" || e.TriggeredBy != structs.EvalTriggerPreemption || e.Status != structs.EvalStatusPending ||
		e.Priority != 20 || e.Type != structs.JobTypeBatch || e.JobModifyIndex != 7 || e.CreateTime != req.UpdatedAt {
		t.Fatalf("eval %+v", e)
	}
	if cpu := committedCPU(store, "n1"); cpu != 900 {
		t.Fatalf("committed %d MHz on n1, want 900", cpu)
	}
}

// Preempting too little still over-commits: the node's part, preemptions
// included, is rejected and no eval is created.
func TestInsufficientPreemptionIsRejected(t *testing.T) {
	store := planapplytest.NewStore()
	store.UpsertNode(planapplytest.Node("n1", 1000, 1000))
	low1, low2 := lowAlloc("l1", "low", "n1", 400), lowAlloc("l2", "other", "n1", 400)
	store.UpsertAlloc(low1)
	store.UpsertAlloc(low2)
	a := start(t, store)

	p := newPlan("e1", 90)
	p.AppendPreemptedAlloc(low1, "high")
	p.AppendAlloc(planapplytest.Alloc("high", "n1", 900, 100))
	res, err := a.Submit(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if res.RefreshIndex == 0 || len(res.NodePreemptions) != 0 || len(store.Commits()) != 0 {
		t.Fatalf("over-committing plan accepted: %+v", res)
	}
	if cpu := committedCPU(store, "n1"); cpu != 800 {
		t.Fatalf("committed %d MHz on n1, want 800", cpu)
	}
}

// A replacement and the stop of the alloc it replaces commit together: when
// the replacement's node is full, the stop on the other node is not
// committed either (no gap), and when the stop's node is rejected the
// replacement is not placed (no two allocs under one name).
func TestReplacementAndStopCommitTogether(t *testing.T) {
	store := planapplytest.NewStore()
	store.UpsertNode(planapplytest.Node("n1", 1000, 1000))
	store.UpsertNode(planapplytest.Node("full", 100, 1000))
	old := planapplytest.Alloc("old", "n1", 200, 100)
	store.UpsertAlloc(old)
	a := start(t, store)

	p := newPlan("e1", 50)
	p.AppendStoppedAlloc(old, "alloc is being updated", "")
	repl := planapplytest.Alloc("new", "full", 200, 100)
	repl.PreviousAllocation = old.ID
	p.AppendAlloc(repl)
	p.AppendAlloc(planapplytest.Alloc("other", "n1", 100, 100)) // n1's own placement fits
	res, err := a.Submit(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.RejectedNodes) != 2 || len(res.NodeUpdate) != 0 || len(res.NodeAllocation) != 0 {
		t.Fatalf("split commit: %+v", res)
	}
	if cpu := committedCPU(store, "n1"); cpu != 200 {
		t.Fatalf("n1 holds %d MHz, want the old alloc's 200", cpu)
	}
}
