package state

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

func testStore(t *testing.T) *StateStore {
	t.Helper()
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func testJob(id string) *structs.Job {
	j := &structs.Job{ID: id, Type: structs.JobTypeService, TaskGroups: []*structs.TaskGroup{{
		Name: "web", Count: 1, Tasks: []*structs.Task{{Name: "t", Driver: "raw_exec"}},
	}}}
	j.Canonicalize()
	return j
}

func testEval(job *structs.Job, status string) *structs.Evaluation {
	return &structs.Evaluation{ID: structs.GenerateUUID(), Namespace: job.Namespace, JobID: job.ID,
		Type: job.Type, Priority: job.Priority, Status: status, TriggeredBy: structs.EvalTriggerJobRegister}
}

func testAlloc(job *structs.Job, nodeID, evalID string) *structs.Allocation {
	return &structs.Allocation{ID: structs.GenerateUUID(), Namespace: job.Namespace, JobID: job.ID, Job: job,
		NodeID: nodeID, EvalID: evalID, TaskGroup: "web", Name: structs.AllocName(job.ID, "web", 0),
		DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusPending}
}

type recorder struct {
	evals    []*structs.Evaluation
	capacity []uint64
	stopped  []string
}

func (r *recorder) EvalsUpserted(evals []*structs.Evaluation) { r.evals = append(r.evals, evals...) }
func (r *recorder) CapacityChanged(index uint64)              { r.capacity = append(r.capacity, index) }
func (r *recorder) JobStopped(ns, id string)                  { r.stopped = append(r.stopped, ns+"/"+id) }

func TestJobLifecycleAndStatus(t *testing.T) {
	s := testStore(t)
	rec := &recorder{}
	s.SetNotifier(rec)
	job := testJob("web")
	eval := testEval(job, structs.EvalStatusPending)
	if err := s.UpsertJob(10, job, eval); err != nil {
		t.Fatal(err)
	}
	got, err := s.JobByID(nil, "default", "web")
	if err != nil || got == nil {
		t.Fatalf("JobByID: %v %v", got, err)
	}
	if got.CreateIndex != 10 || got.JobModifyIndex != 10 || got.Status != structs.JobStatusPending {
		t.Fatalf("job indexes/status: %+v", got)
	}
	if e, _ := s.EvalByID(nil, eval.ID); e == nil || e.JobModifyIndex != 10 || e.CreateIndex != 10 {
		t.Fatalf("eval: %+v", e)
	}
	if len(rec.evals) != 1 || rec.evals[0].ID != eval.ID {
		t.Fatalf("notifier evals: %+v", rec.evals)
	}

	// A plan places an alloc: running.
	alloc := testAlloc(job, "n1", eval.ID)
	alloc.Job = nil
	if err := s.UpsertPlanResults(11, &structs.ApplyPlanResultsRequest{Job: job, AllocsPlaced: []*structs.Allocation{alloc}, EvalID: eval.ID}); err != nil {
		t.Fatal(err)
	}
	done := eval.Copy()
	done.Status = structs.EvalStatusComplete
	if err := s.UpsertEvals(12, []*structs.Evaluation{done}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.JobByID(nil, "default", "web"); got.Status != structs.JobStatusRunning || got.ModifyIndex != 11 {
		t.Fatalf("want running at 11, got %s at %d", got.Status, got.ModifyIndex)
	}
	a, _ := s.AllocByID(nil, alloc.ID)
	if a.Job == nil || a.AllocModifyIndex != 11 || a.CreateIndex != 11 {
		t.Fatalf("placed alloc: %+v", a)
	}

	// Stop the job and its alloc: dead.
	stopped := job.Copy()
	stopped.Stop = true
	if err := s.UpsertJob(13, stopped, nil); err != nil {
		t.Fatal(err)
	}
	if len(rec.stopped) != 1 {
		t.Fatalf("JobStopped not notified: %v", rec.stopped)
	}
	stop := &structs.Allocation{ID: alloc.ID, DesiredStatus: structs.AllocDesiredStatusStop, DesiredDescription: "job stopped"}
	if err := s.UpsertPlanResults(14, &structs.ApplyPlanResultsRequest{Job: stopped, AllocsStopped: []*structs.Allocation{stop}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.JobByID(nil, "default", "web"); got.Status != structs.JobStatusDead {
		t.Fatalf("want dead, got %s", got.Status)
	}
	if a, _ := s.AllocByID(nil, alloc.ID); a.DesiredStatus != structs.AllocDesiredStatusStop || a.AllocModifyIndex != 14 || a.ClientStatus != structs.AllocClientStatusPending {
		t.Fatalf("stopped alloc: %+v", a)
	}
	if len(rec.capacity) != 1 || rec.capacity[0] != 14 {
		t.Fatalf("capacity events: %v", rec.capacity)
	}
	if idx, _ := s.Index(TableAllocs); idx != 14 {
		t.Fatalf("allocs index %d", idx)
	}
	if idx, _ := s.LatestIndex(nil); idx != 14 {
		t.Fatalf("latest index %d", idx)
	}

	if err := s.DeleteJob(15, "default", "web", nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.JobByID(nil, "default", "web"); got != nil {
		t.Fatalf("job not deleted")
	}
}

func TestBatchJobDeadWhenComplete(t *testing.T) {
	s := testStore(t)
	job := testJob("b")
	job.Type = structs.JobTypeBatch
	eval := testEval(job, structs.EvalStatusComplete)
	alloc := testAlloc(job, "n1", eval.ID)
	if err := s.UpsertJob(5, job, eval); err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertAllocs(6, []*structs.Allocation{alloc}); err != nil {
		t.Fatal(err)
	}
	upd := &structs.Allocation{ID: alloc.ID, ClientStatus: structs.AllocClientStatusComplete,
		TaskStates: map[string]*structs.TaskState{"t": {State: structs.TaskStateDead}}}
	unknown := &structs.Allocation{ID: "nope", ClientStatus: structs.AllocClientStatusFailed}
	if err := s.UpdateAllocsFromClient(7, []*structs.Allocation{upd, unknown}, nil); err != nil {
		t.Fatal(err)
	}
	a, _ := s.AllocByID(nil, alloc.ID)
	if a.ClientStatus != structs.AllocClientStatusComplete || a.TaskStates["t"].State != structs.TaskStateDead || a.AllocModifyIndex != 6 || a.ModifyIndex != 7 {
		t.Fatalf("client update not merged: %+v", a)
	}
	if got, _ := s.JobByID(nil, "default", "b"); got.Status != structs.JobStatusDead {
		t.Fatalf("batch job status %s", got.Status)
	}
	if got, _ := s.AllocByID(nil, "nope"); got != nil {
		t.Fatalf("unknown alloc created")
	}
}

func TestAllocIndexesAndNodes(t *testing.T) {
	s := testStore(t)
	job := testJob("j")
	a1, a2 := testAlloc(job, "n1", "e1"), testAlloc(job, "n2", "e1")
	if err := s.UpsertAllocs(3, []*structs.Allocation{a1, a2}); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func() ([]*structs.Allocation, error){
		"job":  func() ([]*structs.Allocation, error) { return s.AllocsByJob(nil, "default", "j") },
		"eval": func() ([]*structs.Allocation, error) { return s.AllocsByEval(nil, "e1") },
		"all":  func() ([]*structs.Allocation, error) { return s.Allocs(nil) },
	} {
		if got, err := f(); err != nil || len(got) != 2 {
			t.Fatalf("%s: %d %v", name, len(got), err)
		}
	}
	if got, _ := s.AllocsByNode(nil, "n1"); len(got) != 1 || got[0].ID != a1.ID {
		t.Fatalf("by node: %+v", got)
	}

	rec := &recorder{}
	s.SetNotifier(rec)
	node := &structs.Node{ID: "n1", Name: "n1", Status: structs.NodeStatusReady}
	if err := s.UpsertNode(4, node); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateNodeStatus(5, "n1", structs.NodeStatusDown, 123); err != nil {
		t.Fatal(err)
	}
	n, _ := s.NodeByID(nil, "n1")
	if n.Status != structs.NodeStatusDown || n.CreateIndex != 4 || n.ModifyIndex != 5 || n.StatusUpdatedAt != 123 {
		t.Fatalf("node: %+v", n)
	}
	if node.Status != structs.NodeStatusReady {
		t.Fatalf("stored object mutated")
	}
	if len(rec.capacity) != 1 || rec.capacity[0] != 4 {
		t.Fatalf("capacity on ready node only: %v", rec.capacity)
	}
	if err := s.UpdateNodeStatus(6, "missing", structs.NodeStatusDown, 0); !errors.Is(err, structs.ErrNodeNotFound) {
		t.Fatalf("unknown node: %v", err)
	}
	if nodes, _ := s.Nodes(nil); len(nodes) != 1 {
		t.Fatalf("nodes: %d", len(nodes))
	}
}

func TestBlockingReadFiresOnWrite(t *testing.T) {
	s := testStore(t)
	ws := memdb.NewWatchSet()
	if jobs, err := s.Jobs(ws, ""); err != nil || len(jobs) != 0 {
		t.Fatalf("jobs %v %v", jobs, err)
	}
	woke := make(chan error, 1)
	go func() { woke <- ws.WatchCtx(context.Background()) }()
	if err := s.UpsertJob(1, testJob("x"), nil); err != nil {
		t.Fatal(err)
	}
	if err := <-woke; err != nil {
		t.Fatalf("watch: %v", err)
	}

	// A watch on an unrelated table does not fire.
	ws2 := memdb.NewWatchSet()
	s.Nodes(ws2)
	if err := s.UpsertJob(2, testJob("y"), nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ws2.WatchCtx(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("nodes watch fired on job write: %v", err)
	}
}

func TestSnapshotMinIndex(t *testing.T) {
	s := testStore(t)
	type result struct {
		snap *StateSnapshot
		err  error
	}
	out := make(chan result, 1)
	go func() {
		snap, err := s.SnapshotMinIndex(context.Background(), 2)
		out <- result{snap, err}
	}()
	if err := s.UpsertJob(1, testJob("a"), nil); err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertJob(2, testJob("b"), nil); err != nil {
		t.Fatal(err)
	}
	r := <-out
	if r.err != nil {
		t.Fatal(r.err)
	}
	if jobs, _ := r.snap.Jobs(nil, "default"); len(jobs) != 2 {
		t.Fatalf("snapshot jobs: %d", len(jobs))
	}
	// The snapshot does not see later writes.
	if err := s.UpsertJob(3, testJob("c"), nil); err != nil {
		t.Fatal(err)
	}
	if jobs, _ := r.snap.Jobs(nil, ""); len(jobs) != 2 {
		t.Fatalf("snapshot not isolated: %d", len(jobs))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if _, err := s.SnapshotMinIndex(ctx, 100); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want deadline, got %v", err)
	}
	s.Abandon()
	if _, err := s.SnapshotMinIndex(context.Background(), 100); !errors.Is(err, ErrAbandoned) {
		t.Fatalf("want abandoned, got %v", err)
	}
}

func TestPersistRestore(t *testing.T) {
	s := testStore(t)
	job := testJob("p")
	eval := testEval(job, structs.EvalStatusPending)
	if err := s.UpsertJob(1, job, eval); err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertNode(2, &structs.Node{ID: "n1", Status: structs.NodeStatusReady}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertAllocs(3, []*structs.Allocation{testAlloc(job, "n1", eval.ID)}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := s.Snapshot().Persist(&buf); err != nil {
		t.Fatal(err)
	}
	r, err := Restore(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if j, _ := r.JobByID(nil, "default", "p"); j == nil || j.Status != structs.JobStatusRunning {
		t.Fatalf("restored job: %+v", j)
	}
	if e, _ := r.EvalByID(nil, eval.ID); e == nil {
		t.Fatal("eval lost")
	}
	if n, _ := r.NodeByID(nil, "n1"); n == nil {
		t.Fatal("node lost")
	}
	if a, _ := r.AllocsByNode(nil, "n1"); len(a) != 1 || a[0].Job == nil {
		t.Fatalf("allocs: %+v", a)
	}
	if idx, _ := r.LatestIndex(nil); idx != 3 {
		t.Fatalf("latest index %d", idx)
	}
	if _, err := Restore(bytes.NewReader([]byte{0x09}), nil); err == nil {
		t.Fatal("unknown record accepted")
	}
}

func TestJobStatusRule(t *testing.T) {
	job := testJob("j")
	stopped := testJob("j")
	stopped.Stop = true
	run := &structs.Allocation{DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning}
	done := &structs.Allocation{DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusComplete}
	stoppedAlloc := &structs.Allocation{DesiredStatus: structs.AllocDesiredStatusStop, ClientStatus: structs.AllocClientStatusRunning}
	pending := &structs.Evaluation{Status: structs.EvalStatusPending}
	blocked := &structs.Evaluation{Status: structs.EvalStatusBlocked}
	complete := &structs.Evaluation{Status: structs.EvalStatusComplete}
	cases := []struct {
		name   string
		job    *structs.Job
		allocs []*structs.Allocation
		evals  []*structs.Evaluation
		want   string
	}{
		{"new", job, nil, nil, structs.JobStatusPending},
		{"eval pending", job, nil, []*structs.Evaluation{pending}, structs.JobStatusPending},
		{"blocked", job, nil, []*structs.Evaluation{complete, blocked}, structs.JobStatusPending},
		{"running", job, []*structs.Allocation{run, done}, []*structs.Evaluation{complete}, structs.JobStatusRunning},
		{"all done", job, []*structs.Allocation{done}, []*structs.Evaluation{complete}, structs.JobStatusDead},
		{"stopped, no allocs", stopped, nil, nil, structs.JobStatusDead},
		{"stopped allocs", stopped, []*structs.Allocation{stoppedAlloc}, []*structs.Evaluation{complete}, structs.JobStatusDead},
		{"stopped, eval pending", stopped, []*structs.Allocation{stoppedAlloc}, []*structs.Evaluation{pending}, structs.JobStatusPending},
	}
	for _, c := range cases {
		if got := JobStatus(c.job, c.allocs, c.evals); got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
}
