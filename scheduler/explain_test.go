package scheduler_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/scheduler/schedulertest"
	"github.com/nomadish/nomadish/structs"
)

// explainStore holds a job "web" (dc1, raw_exec, cpu 500, mem 6000) and
// nodes made by the test case.
func explainStore(nodes ...*structs.Node) (*schedulertest.Store, *structs.Job) {
	s := schedulertest.NewStore()
	for _, n := range nodes {
		s.UpsertNode(n)
	}
	job := schedulertest.Job("web", structs.JobTypeService, 1, 500, 6000)
	job.Datacenters = []string{"dc1"}
	s.UpsertJob(job)
	return s, job
}

func TestExplainNode(t *testing.T) {
	threeFailures := schedulertest.Node("bad", "dc2", 4000, 2048)
	threeFailures.Drivers = map[string]*structs.DriverInfo{}
	threeFailures.Drain = true
	unhealthy := schedulertest.Node("sick", "dc1", 4000, 8192)
	unhealthy.Drivers["raw_exec"].Healthy = false
	full := schedulertest.Node("full", "dc1", 400, 1000)
	full.NodeResources.Disk.DiskMB = 0
	cases := []struct {
		name          string
		node          *structs.Node
		failures      []string
		exhausted     []string
		feasible, fit bool
	}{
		{name: "fits", node: schedulertest.Node("ok", "dc1", 4000, 8192), feasible: true, fit: true},
		{
			name: "every failure, not the first", node: threeFailures,
			failures: []string{
				`datacenter "dc2" not in the job's datacenters [dc1]`,
				"node is draining",
				`task "task": missing driver "raw_exec"`,
			},
			exhausted: []string{"memory: asks 6000 MB, 2048 MB free of 2048 MB"},
		},
		{name: "unhealthy driver", node: unhealthy, failures: []string{`task "task": driver "raw_exec" unhealthy`}, fit: true},
		{
			name: "every dimension with numbers", node: full, feasible: true,
			exhausted: []string{"cpu: asks 500 MHz, 400 MHz free of 400 MHz", "memory: asks 6000 MB, 1000 MB free of 1000 MB",
				"disk: asks 300 MB, 0 MB free of 0 MB"}, // the group's default 300 MB ephemeral disk
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, job := explainStore(tc.node)
			v, err := scheduler.ExplainNode(s, job, "web", tc.node.ID, epoch)
			if err != nil {
				t.Fatal(err)
			}
			if v.NodeID != tc.node.ID || v.NodeName != tc.node.Name {
				t.Errorf("node: %s/%s", v.NodeID, v.NodeName)
			}
			if !slices.Equal(v.Failures, tc.failures) {
				t.Errorf("failures:\n got %q\nwant %q", v.Failures, tc.failures)
			}
			if !slices.Equal(v.Exhausted, tc.exhausted) {
				t.Errorf("exhausted:\n got %q\nwant %q", v.Exhausted, tc.exhausted)
			}
			if v.Feasible != tc.feasible || v.Fits != tc.fit {
				t.Errorf("feasible=%v fits=%v, want %v %v", v.Feasible, v.Fits, tc.feasible, tc.fit)
			}
			placeable := tc.feasible && tc.fit
			if placeable != (v.Scores != nil) {
				t.Errorf("scores %v for placeable=%v", v.Scores, placeable)
			}
		})
	}
}

// The verdict counts what the node already holds, and scores a node that
// could take the group with the stack's own scorers.
func TestExplainNodeUsedAndScores(t *testing.T) {
	s, job := explainStore(schedulertest.Node("n1", "dc1", 4000, 8192))
	other := schedulertest.Job("other", structs.JobTypeService, 1, 1000, 4096)
	s.UpsertJob(other)
	s.UpsertAllocs(&structs.Allocation{
		ID: "a1", Namespace: other.Namespace, JobID: "other", Job: other, TaskGroup: "other", NodeID: "n1",
		Name:               "other.other[0]",
		AllocatedResources: structs.AllocatedFor(other.TaskGroups[0]),
		DesiredStatus:      structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning,
	})
	v, err := scheduler.ExplainNode(s, job, "web", "n1", epoch)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"memory: asks 6000 MB, 4096 MB free of 8192 MB"}
	if !v.Feasible || v.Fits || !slices.Equal(v.Exhausted, want) {
		t.Errorf("verdict %+v, want feasible, exhausted %q", v, want)
	}
	job.TaskGroups[0].Tasks[0].Resources.MemoryMB = 1024
	v, err = scheduler.ExplainNode(s, job, "web", "n1", epoch)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Placeable() || v.Scores["binpack"] <= 0 || v.Scores["final"] <= 0 {
		t.Errorf("verdict %+v: want placeable with binpack and final scores", v)
	}
}

func TestExplainNodeErrors(t *testing.T) {
	s, job := explainStore(schedulertest.Node("n1", "dc1", 4000, 8192))
	if _, err := scheduler.ExplainNode(s, job, "nope", "n1", epoch); !errors.Is(err, scheduler.ErrUnknownGroup) {
		t.Errorf("unknown group: %v", err)
	}
	if _, err := scheduler.ExplainNode(s, job, "web", "n9", epoch); !errors.Is(err, scheduler.ErrUnknownNode) {
		t.Errorf("unknown node: %v", err)
	}
}

func TestResolveNode(t *testing.T) {
	s := schedulertest.NewStore()
	for _, id := range []string{"abc-1", "abd-2", "xyz-3"} {
		n := schedulertest.Node(id, "dc1", 1000, 1000)
		n.Name = "name-" + id
		s.UpsertNode(n)
	}
	for ref, want := range map[string]string{"abc-1": "abc-1", "abc": "abc-1", "x": "xyz-3", "name-abd-2": "abd-2"} {
		n, err := scheduler.ResolveNode(s, ref)
		if err != nil || n.ID != want {
			t.Errorf("ResolveNode(%q) = %v, %v; want %s", ref, n, err, want)
		}
	}
	if _, err := scheduler.ResolveNode(s, "ab"); !errors.Is(err, scheduler.ErrAmbiguousNode) {
		t.Errorf("ambiguous: %v", err)
	}
	for _, ref := range []string{"", "q"} {
		if _, err := scheduler.ResolveNode(s, ref); !errors.Is(err, scheduler.ErrUnknownNode) {
			t.Errorf("ResolveNode(%q): %v", ref, err)
		}
	}
}

// Every field of ComparableResources is a dimension the explanation names.
func TestDimensionsCoverComparable(t *testing.T) {
	var c structs.ComparableResources
	rv := reflect.ValueOf(&c).Elem()
	for i := range rv.NumField() {
		rv.Field(i).SetInt(int64(i + 1))
	}
	var got []int64
	for _, d := range c.Dimensions() {
		got = append(got, d.Value)
	}
	slices.Sort(got)
	for i := range rv.NumField() {
		if i >= len(got) || got[i] != int64(i+1) {
			t.Fatalf("ComparableResources.Dimensions misses field %s", rv.Type().Field(i).Name)
		}
	}
}

// ExplainNodeInPlan sees the node as the plan leaves it: a stopped
// allocation frees its room, a placed one takes it.
func TestExplainNodeInPlan(t *testing.T) {
	s, job := explainStore(schedulertest.Node("n1", "dc1", 4000, 8192))
	old := &structs.Allocation{
		ID: "old", Namespace: job.Namespace, JobID: job.ID, Job: job, TaskGroup: "web", NodeID: "n1", Name: "web.web[0]",
		AllocatedResources: structs.AllocatedFor(job.TaskGroups[0]),
		DesiredStatus:      structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning,
	}
	s.UpsertAllocs(old)
	if v, err := scheduler.ExplainNode(s, job, "web", "n1", epoch); err != nil || v.Fits {
		t.Fatalf("with the old alloc: %+v, %v", v, err)
	}
	plan := structs.NewPlan(&structs.Evaluation{ID: "e"}, job)
	plan.AppendStoppedAlloc(old, "replaced", "")
	v, err := scheduler.ExplainNodeInPlan(s, plan, job, "web", "n1", epoch)
	if err != nil || !v.Placeable() {
		t.Fatalf("old alloc stopped by the plan: %+v, %v", v, err)
	}
	placed := *old
	placed.ID = "new"
	plan.AppendAlloc(&placed)
	v, err = scheduler.ExplainNodeInPlan(s, plan, job, "web", "n1", epoch)
	want := []string{"memory: asks 6000 MB, 2192 MB free of 8192 MB"}
	if err != nil || v.Fits || !slices.Equal(v.Exhausted, want) {
		t.Fatalf("new alloc placed by the plan: %+v, %v", v, err)
	}
	if len(plan.NodeAllocation["n1"]) != 1 || len(plan.NodeUpdate["n1"]) != 1 {
		t.Errorf("plan modified: %+v", plan)
	}
}

// The verdict agrees with the scheduler: on a one-node cluster, the group is
// placed exactly when the verdict says the node can take it, and a node the
// scheduler rules out gets at least one failure or exhausted dimension.
func TestExplainNodeAgreesWithScheduler(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	for i := range 200 {
		n := schedulertest.Node(fmt.Sprintf("n%d", i), pick("dc1", "dc2"), int64(r.IntN(3000)+100), int64(r.IntN(12000)+500))
		n.Status = pick(structs.NodeStatusReady, structs.NodeStatusReady, structs.NodeStatusDown)
		n.Drain = r.IntN(5) == 0
		if r.IntN(4) == 0 {
			n.Drivers["raw_exec"].Healthy = false
		}
		s, job := explainStore(n)
		job.TaskGroups[0].Tasks[0].Resources.CPU = r.IntN(2000) + 100
		eval := schedulertest.Eval("e", job, structs.EvalTriggerJobRegister)
		s.UpsertEval(eval)
		v, err := scheduler.ExplainNode(s, job, "web", n.ID, epoch)
		if err != nil {
			t.Fatal(err)
		}
		sched, _ := scheduler.New(job.Type, scheduler.Config{State: s, Planner: s, Now: fixedNow})
		if err := sched.Process(eval.Copy()); err != nil {
			t.Fatal(err)
		}
		placed := len(s.Allocs()) == 1
		if placed != v.Placeable() || (!placed && len(v.Failures)+len(v.Exhausted) == 0) {
			t.Fatalf("node %+v: placed=%v, verdict %+v", n, placed, v)
		}
	}
}

// Each task's driver is checked and named.
func TestExplainNodeDriversPerTask(t *testing.T) {
	s, job := explainStore(schedulertest.Node("n1", "dc1", 4000, 8192))
	tg := job.TaskGroups[0]
	tg.Tasks = append(tg.Tasks,
		&structs.Task{Name: "db", Driver: "docker", Resources: &structs.Resources{CPU: 100, MemoryMB: 100}},
		&structs.Task{Name: "vm", Driver: "qemu", Resources: &structs.Resources{CPU: 100, MemoryMB: 100}})
	v, err := scheduler.ExplainNode(s, job, "web", "n1", epoch)
	want := []string{`task "db": missing driver "docker"`, `task "vm": missing driver "qemu"`}
	if err != nil || !slices.Equal(v.Failures, want) {
		t.Fatalf("failures %q (%v), want %q", v.Failures, err, want)
	}
}

// A node that lacks room only because of lower-priority work says which
// allocations preemption would evict.
func TestExplainNodePreemption(t *testing.T) {
	s, job := explainStore(schedulertest.Node("n1", "dc1", 4000, 8192))
	for _, prio := range []int{50, 20} {
		other := schedulertest.Job(fmt.Sprintf("other%d", prio), structs.JobTypeService, 1, 1000, 4096)
		other.Priority = prio
		s.UpsertJob(other)
		s.UpsertAllocs(&structs.Allocation{
			ID: other.ID, Namespace: other.Namespace, JobID: other.ID, Job: other, TaskGroup: other.ID, NodeID: "n1",
			Name: other.ID + "[0]", AllocatedResources: structs.AllocatedFor(other.TaskGroups[0]),
			DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning,
		})
	}
	job.TaskGroups[0].Tasks[0].Resources.MemoryMB = 4000
	v, err := scheduler.ExplainNode(s, job, "web", "n1", epoch)
	want := []string{"other20[0] (job other20, priority 20)"}
	if err != nil || v.Fits || !slices.Equal(v.Preemptions, want) {
		t.Fatalf("verdict %+v (%v), want preemptions %q", v, err, want)
	}
}

// The cheap metric of an ordinary placement counts filtered and exhausted
// nodes by class too, as Nomad's does.
func TestMetricCountsClasses(t *testing.T) {
	nodriver := schedulertest.Node("a", "dc1", 4000, 8192)
	nodriver.NodeClass, nodriver.Drivers = "gpu", map[string]*structs.DriverInfo{}
	small := schedulertest.Node("b", "dc1", 4000, 1024)
	small.NodeClass = "small"
	s, job := explainStore(nodriver, small)
	eval := schedulertest.Eval("e", job, structs.EvalTriggerJobRegister)
	s.UpsertEval(eval)
	sched, _ := scheduler.New(job.Type, scheduler.Config{State: s, Planner: s, Now: fixedNow})
	if err := sched.Process(eval.Copy()); err != nil {
		t.Fatal(err)
	}
	m := s.Eval("e").FailedTGAllocs["web"]
	if m == nil || m.ClassFiltered["gpu"] != 1 || m.ClassExhausted["small"] != 1 || m.DimensionExhausted["memory"] != 1 {
		t.Fatalf("metric %+v", m)
	}
}
