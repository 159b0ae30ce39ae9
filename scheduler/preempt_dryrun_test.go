package scheduler_test

import (
	"testing"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/scheduler/schedulertest"
	"github.com/nomadish/nomadish/structs"
)

// A dry run (job plan) counts the evictions per group and lists them, and
// commits nothing; with preemption off for the type it fails instead.
func TestDryRunAnnotatesPreemptions(t *testing.T) {
	s := schedulertest.NewStore()
	s.UpsertNode(schedulertest.Node("n1", "dc1", 1000, 1024))
	low := schedulertest.Job("low", structs.JobTypeBatch, 1, 1000, 256)
	low.Priority = 10
	s.UpsertJob(low)
	s.UpsertEval(schedulertest.Eval("e1", low, structs.EvalTriggerJobRegister))
	sched, _ := scheduler.New(structs.JobTypeBatch, scheduler.Config{State: s, Planner: s, Now: fixedNow})
	if err := sched.Process(s.Eval("e1").Copy()); err != nil {
		t.Fatal(err)
	}
	high := schedulertest.Job("high", structs.JobTypeService, 1, 500, 256)
	high.Priority = 90
	eval := schedulertest.Eval("e2", high, structs.EvalTriggerJobRegister)

	plan, ann, failed, err := scheduler.DryRun(structs.JobTypeService, scheduler.WithJob(s, high), eval, epoch)
	if err != nil {
		t.Fatal(err)
	}
	if len(failed) != 0 || ann.DesiredTGUpdates["high"].Preemptions != 1 || len(ann.PreemptedAllocs) != 1 ||
		ann.PreemptedAllocs[0].JobID != "low" || len(plan.NodePreemptions["n1"]) != 1 {
		t.Fatalf("failed %v, annotations %+v", failed, ann)
	}
	if a := s.Allocs()[0]; a.DesiredStatus != structs.AllocDesiredStatusRun {
		t.Fatalf("a dry run evicted %s", a.Name)
	}

	cfg := structs.DefaultSchedulerConfiguration()
	cfg.PreemptionConfig.ServiceSchedulerEnabled = false
	s.SetSchedulerConfig(cfg)
	_, ann, failed, err = scheduler.DryRun(structs.JobTypeService, scheduler.WithJob(s, high), eval, epoch)
	if err != nil {
		t.Fatal(err)
	}
	if len(failed) != 1 || ann.DesiredTGUpdates["high"].Preemptions != 0 || len(ann.PreemptedAllocs) != 0 {
		t.Fatalf("preemption disabled: failed %v, annotations %+v", failed, ann)
	}
}
