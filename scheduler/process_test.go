package scheduler_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/scheduler/schedulertest"
	"github.com/nomadish/nomadish/structs"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func fixedNow() time.Time { return epoch }

func TestNewTypes(t *testing.T) {
	s := schedulertest.NewStore()
	cfg := scheduler.Config{State: s, Planner: s}
	for _, typ := range []string{"service", "batch", "system", "sysbatch"} {
		if _, err := scheduler.New(typ, cfg); err != nil {
			t.Errorf("New(%q): %v", typ, err)
		}
	}
	for typ, want := range map[string]string{
		"nope": `unknown scheduler type "nope"`,
	} {
		if _, err := scheduler.New(typ, cfg); err == nil || err.Error() != want {
			t.Errorf("New(%q) = %v, want %q", typ, err, want)
		}
	}
	if _, err := scheduler.New("service", scheduler.Config{}); err == nil {
		t.Error("New without State/Planner: no error")
	}
}

// placementFields checks what the contract says a placed alloc carries.
func TestPlacementFields(t *testing.T) {
	s := schedulertest.NewStore()
	s.UpsertNode(schedulertest.Node("n1", "dc1", 4000, 8192))
	job := schedulertest.Job("web", structs.JobTypeService, 1, 200, 128)
	s.UpsertJob(job)
	eval := schedulertest.Eval("e1", job, structs.EvalTriggerJobRegister)
	s.UpsertEval(eval)
	sched, err := scheduler.New("service", scheduler.Config{State: s, Planner: s, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if err := sched.Process(eval.Copy()); err != nil {
		t.Fatal(err)
	}
	allocs := s.Allocs()
	if len(allocs) != 1 {
		t.Fatalf("got %d allocs", len(allocs))
	}
	a := allocs[0]
	switch {
	case a.ID == "" || a.Namespace != job.Namespace || a.EvalID != "e1" || a.Name != "web.web[0]":
		t.Errorf("identity: %+v", a)
	case a.NodeID != "n1" || a.NodeName != "n1" || a.JobID != "web" || a.Job == nil || a.TaskGroup != "web":
		t.Errorf("placement: %+v", a)
	case a.AllocatedResources.Comparable() != (structs.ComparableResources{CpuShares: 200, MemoryMB: 128, DiskMB: structs.DefaultEphemeralDiskMB}):
		t.Errorf("resources: %+v", a.AllocatedResources.Comparable())
	case a.Metrics == nil || a.Metrics.NodesEvaluated != 1:
		t.Errorf("metrics: %+v", a.Metrics)
	case a.DesiredStatus != structs.AllocDesiredStatusRun || a.ClientStatus != structs.AllocClientStatusPending:
		t.Errorf("status: %s/%s", a.DesiredStatus, a.ClientStatus)
	case a.CreateTime != epoch.UnixNano() || a.ModifyTime != epoch.UnixNano():
		t.Errorf("times: %d %d", a.CreateTime, a.ModifyTime)
	}
	if e := s.Eval("e1"); e.Status != structs.EvalStatusComplete || e.QueuedAllocations["web"] != 0 {
		t.Errorf("eval: %+v", e)
	}
}

// brokenState fails every read of allocations.
type brokenState struct{ scheduler.State }

func (brokenState) LiveAllocsByNode(string) ([]*structs.Allocation, error) {
	return nil, errors.New("disk on fire")
}

func TestProcessStateError(t *testing.T) {
	s := schedulertest.NewStore()
	s.UpsertNode(schedulertest.Node("n1", "dc1", 4000, 8192))
	job := schedulertest.Job("web", structs.JobTypeService, 1, 200, 128)
	s.UpsertJob(job)
	sched, _ := scheduler.New("service", scheduler.Config{State: brokenState{s}, Planner: s, Now: fixedNow})
	err := sched.Process(schedulertest.Eval("e1", job, structs.EvalTriggerJobRegister))
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("Process = %v, want the state error", err)
	}
	if len(s.Plans) != 0 || len(s.Evals()) != 0 {
		t.Fatalf("a failed read still wrote: %d plans, %d evals", len(s.Plans), len(s.Evals()))
	}
}

func TestDryRun(t *testing.T) {
	s := schedulertest.NewStore()
	s.UpsertNode(schedulertest.Node("n1", "dc1", 1300, 8192))
	job := schedulertest.Job("web", structs.JobTypeService, 2, 400, 128)
	s.UpsertJob(job)
	sched, _ := scheduler.New("service", scheduler.Config{State: s, Planner: s, Now: fixedNow})
	if err := sched.Process(schedulertest.Eval("e1", job, structs.EvalTriggerJobRegister)); err != nil {
		t.Fatal(err)
	}
	before := len(s.Allocs())

	// Plan count 4: two stay, one more fits, one does not.
	planned := job.Copy()
	planned.TaskGroups[0].Count = 4
	eval := schedulertest.Eval("plan", planned, structs.EvalTriggerJobRegister)
	plan, ann, failed, err := scheduler.DryRun("service", scheduler.WithJob(s, planned), eval, epoch)
	if err != nil {
		t.Fatal(err)
	}
	u := ann.DesiredTGUpdates["web"]
	if u == nil || u.Place != 2 || u.Ignore != 2 || u.Stop != 0 {
		t.Fatalf("annotations: %+v", u)
	}
	if n := len(plan.NodeAllocation["n1"]); n != 1 {
		t.Fatalf("plan places %d on n1, want 1", n)
	}
	m := failed["web"]
	if m == nil || m.DimensionExhausted["cpu"] != 1 || m.CoalescedFailures != 0 {
		t.Fatalf("failed: %+v", m)
	}
	if len(s.Allocs()) != before || len(s.Plans) != 1 || eval.Status != structs.EvalStatusPending {
		t.Fatal("dry run changed the store or the eval")
	}
	if _, _, _, err := scheduler.DryRun("nope", s, eval, epoch); err == nil {
		t.Fatal("DryRun(nope): no error")
	}
}
