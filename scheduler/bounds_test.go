package scheduler_test

import (
	"math"
	"testing"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/scheduler/schedulertest"
	"github.com/nomadish/nomadish/structs"
)

// processJob runs one eval of job through the service scheduler.
func processJob(t *testing.T, s *schedulertest.Store, job *structs.Job, evalID string) *structs.Evaluation {
	t.Helper()
	s.UpsertJob(job)
	eval := schedulertest.Eval(evalID, job, structs.EvalTriggerJobRegister)
	s.UpsertEval(eval)
	sched, err := scheduler.New("service", scheduler.Config{State: s, Planner: s, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if err := sched.Process(eval.Copy()); err != nil {
		t.Fatal(err)
	}
	return s.Eval(evalID)
}

// TestHugeAsksNeverOverCommit: the scheduler's sums saturate. A job asking
// 2^63-1 MHz (one that validation would refuse, reaching the scheduler from
// an older state) is placed nowhere, and an allocation already holding
// 2^63-1 MHz and MB on a 24 GB node leaves no room for 30 GB of others:
// unsaturated, the sums wrapped negative and the node looked empty.
func TestHugeAsksNeverOverCommit(t *testing.T) {
	s := schedulertest.NewStore()
	s.UpsertNode(schedulertest.Node("n1", "dc1", 4000, 24*1024))
	e := processJob(t, s, schedulertest.Job("huge", structs.JobTypeService, 3, math.MaxInt, 128), "e1")
	if n := len(s.Allocs()); n != 0 {
		t.Fatalf("placed %d allocs asking 2^63-1 MHz", n)
	}
	m := e.FailedTGAllocs["huge"]
	if m == nil || m.CoalescedFailures != 2 || e.BlockedEval == "" {
		t.Fatalf("eval: failed %+v blocked %q", m, e.BlockedEval)
	}

	old := schedulertest.Job("old", structs.JobTypeService, 1, 100, 128)
	s.UpsertJob(old)
	s.UpsertAllocs(&structs.Allocation{ID: "old-alloc", Namespace: old.Namespace, JobID: old.ID, Job: old, TaskGroup: "old",
		NodeID: "n1", Name: "old.old[0]", DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning,
		AllocatedResources: &structs.AllocatedResources{Tasks: map[string]*structs.AllocatedTaskResources{
			"task": {Cpu: structs.AllocatedCpuResources{CpuShares: math.MaxInt64}, Memory: structs.AllocatedMemoryResources{MemoryMB: math.MaxInt64}},
		}}})
	processJob(t, s, schedulertest.Job("web", structs.JobTypeService, 30, 10, 1024), "e2")
	for _, a := range s.Allocs() {
		if a.JobID == "web" {
			t.Fatalf("placed %s next to a saturated allocation", a.Name)
		}
	}
}

// TestHugeQueueFailsOnce: a group that cannot be placed costs one failure
// record however many allocations are unplaced (the rest are coalesced
// into it), and leaves one blocked eval.
func TestHugeQueueFailsOnce(t *testing.T) {
	s := schedulertest.NewStore()
	s.UpsertNode(schedulertest.Node("n1", "dc1", 4000, 8192))
	const count = structs.DefaultJobMaxCount
	e := processJob(t, s, schedulertest.Job("many", structs.JobTypeService, count, 100, 1024), "e1")
	placed := len(s.Allocs())
	m := e.FailedTGAllocs["many"]
	if placed != 8 || len(e.FailedTGAllocs) != 1 || m == nil || m.CoalescedFailures != count-placed-1 {
		t.Fatalf("placed %d, failed %+v", placed, e.FailedTGAllocs)
	}
	if e.QueuedAllocations["many"] != count-placed {
		t.Fatalf("queued %d, want %d", e.QueuedAllocations["many"], count-placed)
	}
	blocked := 0
	for _, ev := range s.Evals() {
		if ev.Status == structs.EvalStatusBlocked {
			blocked++
		}
	}
	if blocked != 1 {
		t.Fatalf("%d blocked evals, want 1", blocked)
	}
}

// BenchmarkUnplaceableQueueAtJobMaxCount is the cost of one eval of a job
// at the default job_max_count that mostly cannot be placed (the work a
// blocked eval costs each time capacity changes).
func BenchmarkUnplaceableQueueAtJobMaxCount(b *testing.B) {
	job := schedulertest.Job("many", structs.JobTypeService, structs.DefaultJobMaxCount, 100, 1024)
	for b.Loop() {
		s := schedulertest.NewStore()
		s.UpsertNode(schedulertest.Node("n1", "dc1", 4000, 8192))
		s.UpsertJob(job)
		eval := schedulertest.Eval("e1", job, structs.EvalTriggerJobRegister)
		s.UpsertEval(eval)
		sched, err := scheduler.New("service", scheduler.Config{State: s, Planner: s, Now: fixedNow})
		if err != nil {
			b.Fatal(err)
		}
		if err := sched.Process(eval.Copy()); err != nil {
			b.Fatal(err)
		}
	}
}
