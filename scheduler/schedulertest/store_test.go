package schedulertest

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func place(job *structs.Job, node string, idx uint) *structs.Allocation {
	tg := job.TaskGroups[0]
	return &structs.Allocation{
		ID: structs.GenerateUUID(), Namespace: job.Namespace, Name: structs.AllocName(job.ID, tg.Name, idx),
		NodeID: node, JobID: job.ID, Job: job, TaskGroup: tg.Name, AllocatedResources: structs.AllocatedFor(tg),
		DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusPending,
	}
}

func TestSubmitPlanFitCheck(t *testing.T) {
	s := NewStore()
	s.UpsertNode(Node("n1", "dc1", 1000, 4096))
	s.UpsertNode(Node("n2", "dc1", 1000, 4096))
	job := Job("web", structs.JobTypeService, 3, 600, 100)
	existing := place(job, "n1", 9)
	s.UpsertAllocs(existing)

	// n1 is full (600 + 600 > 1000) unless the plan stops the existing alloc.
	plan := structs.NewPlan(Eval("e1", job, "test"), job)
	plan.AppendAlloc(place(job, "n1", 0))
	plan.AppendAlloc(place(job, "n2", 1))
	res, newState, err := s.SubmitPlan(plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.RejectedNodes) != 1 || res.RejectedNodes[0] != "n1" || res.RefreshIndex == 0 || newState == nil {
		t.Fatalf("want n1 rejected with a refresh index: %+v", res)
	}
	if ok, _, _ := res.FullCommit(plan); ok || len(res.NodeAllocation["n2"]) != 1 {
		t.Fatalf("want n2 committed only: %+v", res.NodeAllocation)
	}

	plan = structs.NewPlan(Eval("e2", job, "test"), job)
	plan.AppendStoppedAlloc(existing, "make room", "")
	plan.AppendAlloc(place(job, "n1", 0))
	if res, _, _ = s.SubmitPlan(plan); res.RefreshIndex != 0 {
		t.Fatalf("stop + place on n1 rejected: %+v", res)
	}
	if a := s.allocs[existing.ID]; a.DesiredStatus != structs.AllocDesiredStatusStop {
		t.Fatalf("stop not applied: %s", a.DesiredStatus)
	}
}

func TestSubmitPlanAllAtOnce(t *testing.T) {
	s := NewStore()
	s.UpsertNode(Node("n1", "dc1", 1000, 4096))
	s.UpsertNode(Node("n2", "dc1", 100, 4096))
	job := Job("web", structs.JobTypeService, 2, 600, 100)
	job.AllAtOnce = true
	plan := structs.NewPlan(Eval("e1", job, "test"), job)
	plan.AppendAlloc(place(job, "n1", 0))
	plan.AppendAlloc(place(job, "n2", 1))
	res, _, _ := s.SubmitPlan(plan)
	if len(res.RejectedNodes) != 2 || len(res.NodeAllocation) != 0 || len(s.allocs) != 0 {
		t.Fatalf("all-at-once plan partly committed: %+v", res)
	}
}
