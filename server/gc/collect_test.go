package gc

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/nomadish/nomadish/internal/clock/clocktest"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// world is a tiny state: objects stamped with the fake clock's time.
type world struct {
	clk *clocktest.FakeClock
	in  Input
}

func newWorld() *world { return &world{clk: clocktest.NewFakeClock()} }

func (w *world) now() int64 { return w.clk.Now().UnixNano() }

func (w *world) job(id, typ, status string) *structs.Job {
	j := structstest.Job(id)
	j.Namespace, j.Type, j.Status, j.SubmitTime = "default", typ, status, w.now()
	j.JobModifyIndex = 10
	w.in.Jobs = append(w.in.Jobs, j)
	return j
}

func (w *world) eval(id string, j *structs.Job, status string) *structs.Evaluation {
	e := &structs.Evaluation{ID: id, Namespace: j.Namespace, JobID: j.ID, Type: j.Type, Status: status,
		CreateTime: w.now(), ModifyTime: w.now()}
	w.in.Evals = append(w.in.Evals, e)
	return e
}

func (w *world) alloc(id string, e *structs.Evaluation, client string) *structs.Allocation {
	a := &structs.Allocation{ID: id, Namespace: e.Namespace, JobID: e.JobID, EvalID: e.ID, NodeID: "n1",
		Name: e.JobID + ".web[0]", TaskGroup: "web", DesiredStatus: structs.AllocDesiredStatusRun,
		ClientStatus: client, CreateIndex: 10, ModifyIndex: 11, CreateTime: w.now(), ModifyTime: w.now()}
	w.in.Allocs = append(w.in.Allocs, a)
	return a
}

// collect runs Collect after advancing the fake clock by d and returns the
// victims as "kind:id" sorted.
func (w *world) collect(d time.Duration, th Thresholds) []string {
	w.clk.Advance(d)
	res := Collect(w.in, w.clk.Now(), th)
	var out []string
	for _, v := range res.Victims {
		out = append(out, fmt.Sprintf("%s:%s", v.Kind, v.ID))
	}
	sort.Strings(out)
	return out
}

func eq(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) && !(len(got) == 0 && len(want) == 0) {
		t.Errorf("%s: collected %v, want %v", what, got, want)
	}
}

// TestJobThreshold: a finished batch job is kept just under job_gc_threshold
// (its last activity counting) and purged just over, as one victim.
func TestJobThreshold(t *testing.T) {
	w := newWorld()
	j := w.job("b", structs.JobTypeBatch, structs.JobStatusDead)
	e := w.eval("e1", j, structs.EvalStatusComplete)
	a := w.alloc("a1", e, structs.AllocClientStatusComplete)
	w.clk.Advance(time.Minute) // the alloc finishes a minute after submission
	a.ModifyTime = w.now()
	th := DefaultThresholds()
	eq(t, "just under", w.collect(th.Job-time.Second, th))
	eq(t, "just over", w.collect(2*time.Second, th), "job:b")
	if r := Collect(w.in, w.clk.Now(), th); r.Victims[0].Weight != 3 {
		t.Errorf("weight %d, want 3 (job, eval, alloc)", r.Victims[0].Weight)
	}
}

// TestNothingLiveCollected: running allocations, pending evaluations,
// running deployments and down nodes with live allocations stay, however
// old, even with every threshold at zero.
func TestNothingLiveCollected(t *testing.T) {
	w := newWorld()
	stopped := w.job("stopped", structs.JobTypeService, structs.JobStatusRunning)
	stopped.Stop = true
	e := w.eval("e1", stopped, structs.EvalStatusComplete)
	w.alloc("running", e, structs.AllocClientStatusRunning).DesiredStatus = structs.AllocDesiredStatusStop
	pendingJob := w.job("pending", structs.JobTypeBatch, structs.JobStatusPending)
	w.eval("e2", pendingJob, structs.EvalStatusPending)
	w.in.Deployments = append(w.in.Deployments, &structs.Deployment{ID: "d1", Namespace: "default", JobID: "stopped", Status: structs.DeploymentStatusRunning})
	w.in.Nodes = append(w.in.Nodes, &structs.Node{ID: "n1", Status: structs.NodeStatusDown, StatusUpdatedAt: w.now()})
	eq(t, "forced", w.collect(48*time.Hour, Thresholds{})) // e1 stays: its allocation runs
}

// TestEvalThreshold: a live service job's terminal evaluation goes with
// its finished allocation after eval_gc_threshold, not before; a batch
// evaluation waits for batch_eval_gc_threshold.
func TestEvalThreshold(t *testing.T) {
	w := newWorld()
	j := w.job("svc", structs.JobTypeService, structs.JobStatusRunning)
	e := w.eval("e1", j, structs.EvalStatusComplete)
	w.alloc("done", e, structs.AllocClientStatusComplete)
	e2 := w.eval("e2", j, structs.EvalStatusComplete)
	w.alloc("live", e2, structs.AllocClientStatusRunning)
	th := DefaultThresholds()
	eq(t, "just under", w.collect(th.Eval-time.Second, th))
	eq(t, "just over", w.collect(2*time.Second, th), "alloc:done", "eval:e1")
}

// TestRescheduleKeepsLatestFailed: a failed allocation of a live job that
// rescheduling still tracks (attempts left, not replaced) stays, and with
// it its evaluation; one already replaced (NextAllocation) goes, since its
// replacement carries the RescheduleTracker.
func TestRescheduleKeepsLatestFailed(t *testing.T) {
	w := newWorld()
	j := w.job("svc", structs.JobTypeService, structs.JobStatusRunning)
	j.TaskGroups[0].ReschedulePolicy = &structs.ReschedulePolicy{Attempts: 2, Interval: 10 * time.Hour, Delay: time.Second}
	e := w.eval("e1", j, structs.EvalStatusComplete)
	first := w.alloc("first", e, structs.AllocClientStatusFailed)
	first.NextAllocation = "second"
	second := w.alloc("second", e, structs.AllocClientStatusFailed)
	second.RescheduleTracker = &structs.RescheduleTracker{Events: []*structs.RescheduleEvent{{RescheduleTime: w.now(), PrevAllocID: "first"}}}
	eq(t, "within the interval", w.collect(2*time.Hour, DefaultThresholds()), "alloc:first")
	eq(t, "past the interval", w.collect(9*time.Hour, DefaultThresholds()), "alloc:first", "alloc:second", "eval:e1")

	// Unlimited: the latest failed one is kept until replaced.
	j.TaskGroups[0].ReschedulePolicy = &structs.ReschedulePolicy{Unlimited: true, Delay: time.Second}
	eq(t, "unlimited", w.collect(100*time.Hour, DefaultThresholds()), "alloc:first")
}

// TestBatchAllocsKeptWhileJobRuns: a running batch job keeps its current
// version's finished allocations (the scheduler would run them again);
// an older version's go, and the evaluation that held only those.
func TestBatchAllocsKeptWhileJobRuns(t *testing.T) {
	w := newWorld()
	j := w.job("b", structs.JobTypeBatch, structs.JobStatusRunning)
	j.JobModifyIndex = 20
	old := w.eval("old", j, structs.EvalStatusComplete)
	w.alloc("v0", old, structs.AllocClientStatusComplete) // CreateIndex 10 < 20
	cur := w.eval("cur", j, structs.EvalStatusComplete)
	done := w.alloc("v1-done", cur, structs.AllocClientStatusComplete)
	done.CreateIndex = 21
	w.alloc("v1-running", cur, structs.AllocClientStatusRunning).CreateIndex = 21
	eq(t, "forced", w.collect(48*time.Hour, Thresholds{}), "alloc:v0", "eval:old")
}

// TestParentWithLiveChildrenKept: a stopped periodic parent stays while a
// child runs, and goes once the child is dead.
func TestParentWithLiveChildrenKept(t *testing.T) {
	w := newWorld()
	p := w.job("p", structs.JobTypeBatch, structs.JobStatusDead)
	p.Periodic, p.Stop = &structs.PeriodicConfig{Enabled: true, Spec: "* * * * *"}, true
	c := w.job("p/periodic-1", structs.JobTypeBatch, structs.JobStatusRunning)
	c.ParentID = "p"
	e := w.eval("e1", c, structs.EvalStatusComplete)
	a := w.alloc("a1", e, structs.AllocClientStatusRunning)
	eq(t, "child running", w.collect(5*time.Hour, DefaultThresholds()))
	a.ClientStatus, c.Status = structs.AllocClientStatusComplete, structs.JobStatusDead
	eq(t, "child dead", w.collect(0, Thresholds{}), "job:p", "job:p/periodic-1")
	p.Stop = false
	eq(t, "not stopped", w.collect(0, Thresholds{}), "job:p/periodic-1")
}

// TestDeploymentAndNodeThresholds: a terminal deployment and a down node
// go past their thresholds, not before; the deployment dated by the time
// table when it reaches back, by its allocations otherwise.
func TestDeploymentAndNodeThresholds(t *testing.T) {
	w := newWorld()
	j := w.job("svc", structs.JobTypeService, structs.JobStatusRunning)
	e := w.eval("e1", j, structs.EvalStatusPending) // keeps the eval rules out
	a := w.alloc("a1", e, structs.AllocClientStatusRunning)
	a.DeploymentID = "d1"
	d := &structs.Deployment{ID: "d1", Namespace: "default", JobID: "svc", Status: structs.DeploymentStatusSuccessful, ModifyIndex: 50}
	w.in.Deployments = append(w.in.Deployments, d)
	w.in.Nodes = append(w.in.Nodes, &structs.Node{ID: "gone", Status: structs.NodeStatusDown, StatusUpdatedAt: w.now()})
	th := DefaultThresholds()
	eq(t, "live alloc in the deployment", w.collect(th.Node-time.Second, th))
	eq(t, "node over", w.collect(2*time.Second, th), "node:gone")

	a.ClientStatus = structs.AllocClientStatusComplete
	a.ModifyTime = w.now()
	w.in.Nodes = nil
	eq(t, "dated by its alloc, under", w.collect(th.Deployment-time.Second, th))
	eq(t, "dated by its alloc, over", w.collect(2*time.Second, th), "deployment:d1")

	w.in.Times = NewTimeTable(0)
	w.in.Times.Witness(40, w.clk.Now())
	w.in.Times.Witness(60, w.clk.Now().Add(time.Minute))
	eq(t, "table: index 50 after the cutoff's 40", w.collect(th.Deployment, th))
	eq(t, "table: the cutoff reaches 60", w.collect(2*time.Minute, th), "deployment:d1")
}

// TestBatches: batches stay within the weight bound and name every victim
// once.
func TestBatches(t *testing.T) {
	var r Result
	for i := 0; i < 10; i++ {
		r.Victims = append(r.Victims, Victim{Kind: KindJob, ID: fmt.Sprint("j", i), Namespace: "default", Weight: 3})
	}
	r.Victims = append(r.Victims, Victim{Kind: KindAlloc, ID: "a", Weight: 1}, Victim{Kind: KindNode, ID: "n", Weight: 1})
	bs := r.Batches(7)
	total := 0
	for _, b := range bs {
		if w := 3*len(b.Jobs) + len(b.Allocs) + len(b.Nodes); w > 7 {
			t.Errorf("batch weight %d > 7: %+v", w, b)
		}
		total += b.Size()
	}
	if total != 12 || len(bs) != 6 { // five of two jobs (the last with the alloc), the node
		t.Errorf("%d batches naming %d objects, want 6 naming 12", len(bs), total)
	}
}

func TestTimeTable(t *testing.T) {
	tt := NewTimeTable(2)
	t0 := time.Unix(1000, 0)
	if _, ok := tt.IndexAt(t0); ok {
		t.Fatal("empty table dates an index")
	}
	tt.Witness(5, t0)
	tt.Witness(3, t0.Add(time.Second)) // backwards: ignored
	tt.Witness(9, t0.Add(time.Minute))
	tt.Witness(12, t0.Add(time.Hour)) // drops (5, t0)
	if i, ok := tt.IndexAt(t0.Add(30 * time.Minute)); !ok || i != 9 {
		t.Errorf("IndexAt(+30m) = %d %v, want 9", i, ok)
	}
	if _, ok := tt.IndexAt(t0); ok {
		t.Error("dropped entry still dates t0")
	}
}
