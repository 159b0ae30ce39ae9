package drainer

import (
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// world is a small cluster for Plan: a draining node "n1", other nodes, jobs
// and their allocs.
type world struct {
	node   *structs.Node
	jobs   map[structs.NamespacedID]*structs.Job
	allocs []*structs.Allocation
}

func newWorld(spec structs.DrainSpec) *world {
	n := &structs.Node{ID: "n1", Status: structs.NodeStatusReady, Drain: true,
		SchedulingEligibility: structs.NodeSchedulingIneligible, DrainStrategy: structs.NewDrainStrategy(spec, t0)}
	return &world{node: n, jobs: map[structs.NamespacedID]*structs.Job{}}
}

func (w *world) job(id, typ string, count, maxParallel int) *structs.Job {
	j := &structs.Job{ID: id, Type: typ, TaskGroups: []*structs.TaskGroup{{
		Name: "g", Count: count, Tasks: []*structs.Task{{Name: "t", Driver: "raw_exec"}},
		Migrate: &structs.MigrateStrategy{MaxParallel: maxParallel},
	}}}
	j.Canonicalize()
	w.jobs[structs.NamespacedID{Namespace: j.Namespace, ID: j.ID}] = j
	return j
}

// alloc adds a running alloc of job's group at index i on node, started at
// started.
func (w *world) alloc(j *structs.Job, i uint, node string, started time.Time) *structs.Allocation {
	a := &structs.Allocation{ID: j.ID + "-" + node + "-" + string(rune('0'+i)), Namespace: j.Namespace, JobID: j.ID, Job: j,
		TaskGroup: "g", Name: structs.AllocName(j.ID, "g", i), NodeID: node,
		DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning,
		TaskStates: map[string]*structs.TaskState{"t": {State: structs.TaskStateRunning, StartedAt: started}}}
	w.allocs = append(w.allocs, a)
	return a
}

func (w *world) input() NodeInput {
	in := NodeInput{Node: w.node, Jobs: w.jobs, JobAllocs: map[structs.NamespacedID][]*structs.Allocation{}}
	for _, a := range w.allocs {
		if a.NodeID == w.node.ID {
			in.Allocs = append(in.Allocs, a)
		}
		key := structs.NamespacedID{Namespace: a.Namespace, ID: a.JobID}
		in.JobAllocs[key] = append(in.JobAllocs[key], a)
	}
	return in
}

// migrateAll does what the scheduler does with the marks: stop each marked
// alloc and place a pending replacement on n2.
func (w *world) migrateAll(marked []*structs.Allocation) []*structs.Allocation {
	var repl []*structs.Allocation
	for _, a := range marked {
		yes := true
		a.DesiredTransition.Migrate = &yes
		a.DesiredStatus = structs.AllocDesiredStatusStop
		r := w.alloc(a.Job, a.Index(), "n2", time.Time{})
		r.ID += "-r"
		r.ClientStatus, r.TaskStates = structs.AllocClientStatusPending, nil
		repl = append(repl, r)
	}
	return repl
}

func names(allocs []*structs.Allocation) []string {
	var out []string
	for _, a := range allocs {
		out = append(out, a.Name+"@"+a.NodeID)
	}
	return out
}

func eq(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: got %v, want %v", what, got, want)
		}
	}
}

func TestPlanMaxParallelBatches(t *testing.T) {
	w := newWorld(structs.DrainSpec{Deadline: time.Hour})
	j := w.job("web", structs.JobTypeService, 4, 2)
	for i := uint(0); i < 4; i++ {
		w.alloc(j, i, "n1", t0.Add(-time.Hour))
	}
	now := t0
	res := Plan(w.input(), now)
	eq(t, "first batch", names(res.Migrate), []string{"web.g[0]@n1", "web.g[1]@n1"})
	repl := w.migrateAll(res.Migrate)

	// Replacements pending: nothing more.
	if res := Plan(w.input(), now); len(res.Migrate) != 0 || res.Done {
		t.Fatalf("while replacements are pending: %+v", res)
	}
	// Running, but not for min_healthy_time (10s) yet.
	now = now.Add(5 * time.Second)
	for _, r := range repl {
		r.ClientStatus = structs.AllocClientStatusRunning
		r.TaskStates = map[string]*structs.TaskState{"t": {State: structs.TaskStateRunning, StartedAt: now}}
	}
	if res := Plan(w.input(), now.Add(9*time.Second)); len(res.Migrate) != 0 {
		t.Fatalf("before min_healthy_time: %v", names(res.Migrate))
	}
	// One replacement healthy: one more may go.
	res = Plan(w.input(), now.Add(10*time.Second))
	eq(t, "second batch", names(res.Migrate), []string{"web.g[2]@n1", "web.g[3]@n1"})
	w.migrateAll(res.Migrate)
	res = Plan(w.input(), now.Add(11*time.Second))
	if !res.Done || len(res.Migrate) != 0 {
		t.Fatalf("drain should be complete: %+v", res)
	}
}

func TestPlanDeploymentHealthCounts(t *testing.T) {
	w := newWorld(structs.DrainSpec{Deadline: time.Hour})
	j := w.job("web", structs.JobTypeService, 2, 1)
	w.alloc(j, 0, "n1", t0.Add(-time.Hour))
	w.alloc(j, 1, "n1", t0.Add(-time.Hour))
	repl := w.migrateAll(Plan(w.input(), t0).Migrate)
	if len(repl) != 1 {
		t.Fatalf("max_parallel 1: marked %d", len(repl))
	}
	yes := true
	repl[0].ClientStatus = structs.AllocClientStatusRunning
	repl[0].DeploymentStatus = &structs.AllocDeploymentStatus{Healthy: &yes}
	eq(t, "next", names(Plan(w.input(), t0).Migrate), []string{"web.g[1]@n1"})
}

func TestPlanDeadlineForcesRest(t *testing.T) {
	w := newWorld(structs.DrainSpec{Deadline: time.Minute})
	web := w.job("web", structs.JobTypeService, 3, 1)
	batch := w.job("crunch", structs.JobTypeBatch, 1, 0)
	for i := uint(0); i < 3; i++ {
		w.alloc(web, i, "n1", t0.Add(-time.Hour))
	}
	w.alloc(batch, 0, "n1", t0)
	res := Plan(w.input(), t0)
	eq(t, "before deadline", names(res.Migrate), []string{"web.g[0]@n1"})
	w.migrateAll(res.Migrate) // replacement never becomes healthy
	if res := Plan(w.input(), t0.Add(59*time.Second)); len(res.Migrate) != 0 {
		t.Fatalf("batch and paced allocs must wait: %v", names(res.Migrate))
	}
	res = Plan(w.input(), t0.Add(time.Minute))
	if !res.Forced {
		t.Fatal("not forced at the deadline")
	}
	eq(t, "at deadline", names(res.Migrate), []string{"crunch.g[0]@n1", "web.g[1]@n1", "web.g[2]@n1"})
}

func TestPlanForceNow(t *testing.T) {
	w := newWorld(structs.DrainSpec{Deadline: structs.DrainDeadlineForceImmediately})
	web := w.job("web", structs.JobTypeService, 2, 1)
	w.alloc(web, 0, "n1", t0)
	w.alloc(web, 1, "n1", t0)
	eq(t, "force", names(Plan(w.input(), t0).Migrate), []string{"web.g[0]@n1", "web.g[1]@n1"})
}

func TestPlanNoDeadlineNeverForces(t *testing.T) {
	w := newWorld(structs.DrainSpec{})
	batch := w.job("crunch", structs.JobTypeBatch, 1, 0)
	w.alloc(batch, 0, "n1", t0)
	if res := Plan(w.input(), t0.Add(1000*time.Hour)); res.Forced || len(res.Migrate) != 0 || res.Done {
		t.Fatalf("no deadline: %+v", res)
	}
	w.allocs[0].ClientStatus = structs.AllocClientStatusComplete
	if res := Plan(w.input(), t0); !res.Done {
		t.Fatal("batch finished: drain should be done")
	}
}

func TestPlanSystemLastOrIgnored(t *testing.T) {
	w := newWorld(structs.DrainSpec{Deadline: time.Hour})
	web := w.job("web", structs.JobTypeService, 1, 1)
	sys := w.job("logs", structs.JobTypeSystem, 0, 0)
	w.alloc(web, 0, "n1", t0.Add(-time.Hour))
	w.alloc(sys, 0, "n1", t0.Add(-time.Hour))
	res := Plan(w.input(), t0)
	eq(t, "service first", names(res.Migrate), []string{"web.g[0]@n1"})
	w.migrateAll(res.Migrate)
	eq(t, "then system", names(Plan(w.input(), t0).Migrate), []string{"logs.g[0]@n1"})

	w.node.DrainStrategy.IgnoreSystemJobs = true
	res = Plan(w.input(), t0)
	if !res.Done || len(res.Migrate) != 0 {
		t.Fatalf("system allocs ignored: drain should be done: %+v", res)
	}
}

func TestPlanNotDraining(t *testing.T) {
	w := newWorld(structs.DrainSpec{})
	w.node.DrainStrategy = nil
	if res := Plan(w.input(), t0); res.Done || len(res.Migrate) != 0 {
		t.Fatalf("%+v", res)
	}
}
