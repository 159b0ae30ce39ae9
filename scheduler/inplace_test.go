package scheduler_test

import (
	"testing"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/scheduler/schedulertest"
	"github.com/nomadish/nomadish/structs"
)

// A memory growth is planned in place with the alloc's allocated resources
// recomputed while it fits on the node, and as a destructive update (stop
// plus a placement elsewhere) once it does not; `job plan` annotations count
// which is which. The placement in the same eval sees the in-place growth.
func TestDryRunInPlaceResize(t *testing.T) {
	s := schedulertest.NewStore()
	s.UpsertNode(schedulertest.Node("n1", "dc1", 4000, 1024))
	web := schedulertest.Job("web", structs.JobTypeService, 2, 500, 256)
	s.UpsertJob(web)
	s.UpsertEval(schedulertest.Eval("e1", web, structs.EvalTriggerJobRegister))
	sched, _ := scheduler.New(structs.JobTypeService, scheduler.Config{State: s, Planner: s, Now: fixedNow})
	if err := sched.Process(s.Eval("e1").Copy()); err != nil {
		t.Fatal(err)
	}
	s.UpsertNode(schedulertest.Node("n2", "dc1", 4000, 1024))

	resize := func(mem, count int) (*structs.Plan, *structs.DesiredUpdates) {
		t.Helper()
		j := web.Copy()
		j.Version++
		j.JobModifyIndex += 100
		j.TaskGroups[0].Tasks[0].Resources.MemoryMB = mem
		j.TaskGroups[0].Count = count
		plan, ann, failed, err := scheduler.DryRun(structs.JobTypeService, scheduler.WithJob(s, j),
			schedulertest.Eval("e2", j, structs.EvalTriggerJobRegister), epoch)
		if err != nil || len(failed) != 0 {
			t.Fatalf("dry run: %v, failed %v", err, failed)
		}
		return plan, ann.DesiredTGUpdates["web"]
	}

	// 2 x 500 MB fit on n1 (1024): both in place, resized; a third alloc
	// (count 3) does not fit next to them and goes to n2.
	plan, u := resize(500, 3)
	if u.InPlaceUpdate != 2 || u.DestructiveUpdate != 0 || u.Place != 1 {
		t.Fatalf("fitting growth: updates %+v", u)
	}
	for _, a := range plan.NodeAllocation["n1"] {
		if got := a.AllocatedResources.Tasks["task"].Memory.MemoryMB; got != 500 {
			t.Errorf("%s in place: allocated memory %d, want 500", a.Name, got)
		}
	}
	if len(plan.NodeAllocation["n1"]) != 2 || len(plan.NodeAllocation["n2"]) != 1 {
		t.Fatalf("placements: n1 %d, n2 %d", len(plan.NodeAllocation["n1"]), len(plan.NodeAllocation["n2"]))
	}

	// 2 x 600 MB do not: the first grows in place, the second is replaced on n2.
	plan, u = resize(600, 2)
	if u.InPlaceUpdate != 1 || u.DestructiveUpdate != 1 {
		t.Fatalf("growth that does not fit: updates %+v", u)
	}
	if len(plan.NodeUpdate["n1"]) != 1 || len(plan.NodeAllocation["n2"]) != 1 {
		t.Fatalf("want one stop on n1 and one placement on n2, got %v / %v", plan.NodeUpdate, plan.NodeAllocation)
	}
}
