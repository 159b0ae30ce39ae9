package drainer

import (
	"context"
	"testing"
	"time"

	"github.com/nomadish/nomadish/internal/clock/clocktest"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// storeWriter applies the drainer's writes to a state store, as the FSM does.
type storeWriter struct {
	st    *state.StateStore
	index uint64
}

func (w *storeWriter) MarkMigrate(m map[string]*structs.DesiredTransition, evals []*structs.Evaluation) error {
	w.index++
	return w.st.UpdateAllocsDesiredTransitions(w.index, m, evals)
}

func (w *storeWriter) CompleteDrain(nodeID string, ev *structs.NodeEvent) error {
	w.index++
	return w.st.UpdateNodeDrain(w.index, nodeID, nil, false, ev, 0)
}

// newClock is the shared fake clock, at t0.
func newClock(t *testing.T) *clocktest.FakeClock {
	c := clocktest.NewFakeClock()
	if !c.Now().Equal(t0) {
		t.Fatalf("fake clock starts at %v, tests expect %v", c.Now(), t0)
	}
	return c
}

func TestRoundMarksWritesEvalsAndCompletes(t *testing.T) {
	st, err := state.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	w := &storeWriter{st: st, index: 100}
	clock := newClock(t)
	d := New(Config{State: func() State { return st }, Writer: w, Clock: clock})

	job := (&world{jobs: map[structs.NamespacedID]*structs.Job{}}).job("web", structs.JobTypeService, 2, 1)
	if err := st.UpsertJob(1, job, nil); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"n1", "n2"} {
		if err := st.UpsertNode(2, &structs.Node{ID: id, Status: structs.NodeStatusReady}); err != nil {
			t.Fatal(err)
		}
	}
	wd := &world{}
	a0 := wd.alloc(job, 0, "n1", t0.Add(-time.Hour))
	a1 := wd.alloc(job, 1, "n1", t0.Add(-time.Hour))
	a0.EvalID, a1.EvalID = "e", "e"
	if err := st.UpsertAllocs(3, []*structs.Allocation{a0, a1}); err != nil {
		t.Fatal(err)
	}
	if err := st.UpdateNodeDrain(4, "n1", structs.NewDrainStrategy(structs.DrainSpec{Deadline: time.Minute}, t0), false, nil, 0); err != nil {
		t.Fatal(err)
	}
	if err := d.Round(nil); err != nil {
		t.Fatal(err)
	}
	got, _ := st.AllocByID(nil, a0.ID)
	other, _ := st.AllocByID(nil, a1.ID)
	if !got.DesiredTransition.ShouldMigrate() || other.DesiredTransition.ShouldMigrate() {
		t.Fatalf("want only %s marked: %v %v", a0.Name, got.DesiredTransition, other.DesiredTransition)
	}
	evals, _ := st.EvalsByJob(nil, job.Namespace, job.ID)
	if len(evals) != 1 || evals[0].TriggeredBy != structs.EvalTriggerNodeDrain || evals[0].NodeID != "n1" {
		t.Fatalf("evals: %+v", evals)
	}

	// Past the deadline the rest is marked; once both are stopped the
	// drain completes and the node stays ineligible.
	clock.Advance(time.Minute)
	if err := d.Round(nil); err != nil {
		t.Fatal(err)
	}
	if other, _ = st.AllocByID(nil, a1.ID); !other.DesiredTransition.ShouldMigrate() {
		t.Fatal("deadline did not mark the rest")
	}
	var stops []*structs.Allocation
	for _, a := range []*structs.Allocation{a0, a1} {
		s := a.Copy()
		s.DesiredStatus = structs.AllocDesiredStatusStop
		stops = append(stops, s)
	}
	if err := st.UpsertAllocs(200, stops); err != nil {
		t.Fatal(err)
	}
	if err := d.Round(nil); err != nil {
		t.Fatal(err)
	}
	n, _ := st.NodeByID(nil, "n1")
	if n.DrainStrategy != nil || n.Drain || n.SchedulingEligibility != structs.NodeSchedulingIneligible {
		t.Fatalf("after completion: drain=%v strategy=%v elig=%s", n.Drain, n.DrainStrategy, n.SchedulingEligibility)
	}
	if last := n.Events[len(n.Events)-1]; last.Message != structs.NodeEventDrainComplete {
		t.Fatalf("last event %q", last.Message)
	}
}

// signalWriter reports each write on a channel.
type signalWriter struct {
	storeWriter
	wrote chan string
}

func (w *signalWriter) MarkMigrate(m map[string]*structs.DesiredTransition, evals []*structs.Evaluation) error {
	err := w.storeWriter.MarkMigrate(m, evals)
	w.wrote <- "mark"
	return err
}

func (w *signalWriter) CompleteDrain(nodeID string, ev *structs.NodeEvent) error {
	err := w.storeWriter.CompleteDrain(nodeID, ev)
	w.wrote <- "complete " + nodeID
	return err
}

// TestRunWakesOnStateChangeAndClock: Run plans again when the state it read
// changes (a drain starts) and when its clock fires (the deadline passes).
func TestRunWakesOnStateChangeAndClock(t *testing.T) {
	st, err := state.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	w := &signalWriter{storeWriter: storeWriter{st: st, index: 100}, wrote: make(chan string, 4)}
	clock := newClock(t)
	d := New(Config{State: func() State { return st }, Writer: w, Clock: clock})
	job := (&world{jobs: map[structs.NamespacedID]*structs.Job{}}).job("web", structs.JobTypeService, 2, 1)
	if err := st.UpsertJob(1, job, nil); err != nil {
		t.Fatal(err)
	}
	if err := st.UpsertNode(2, &structs.Node{ID: "n1", Status: structs.NodeStatusReady}); err != nil {
		t.Fatal(err)
	}
	wd := &world{}
	a0, a1 := wd.alloc(job, 0, "n1", t0.Add(-time.Hour)), wd.alloc(job, 1, "n1", t0.Add(-time.Hour))
	a0.EvalID, a1.EvalID = "e", "e"
	if err := st.UpsertAllocs(3, []*structs.Allocation{a0, a1}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	// A state change wakes it: the drain starts, one alloc is marked.
	if err := st.UpdateNodeDrain(4, "n1", structs.NewDrainStrategy(structs.DrainSpec{Deadline: time.Minute}, t0), false, nil, 0); err != nil {
		t.Fatal(err)
	}
	if got := <-w.wrote; got != "mark" {
		t.Fatalf("first write %q", got)
	}
	// Its own write wakes it again, but the replacement is not healthy:
	// nothing more until the clock passes the deadline.
	clock.Advance(time.Minute)
	// Run may be between a round and its wait: fire its interval timer
	// until it plans again (it reads the clock past the deadline now).
	got := ""
	for i := 0; got == "" && i < 1000; i++ {
		clock.Advance(time.Second)
		select {
		case got = <-w.wrote:
		case <-time.After(10 * time.Millisecond):
		}
	}
	if got != "mark" {
		t.Fatalf("after the deadline %q", got)
	}
	if b, _ := st.AllocByID(nil, a1.ID); !b.DesiredTransition.ShouldMigrate() {
		t.Fatal("deadline did not mark the second alloc")
	}
}

func TestRunStopsWithContext(t *testing.T) {
	st, _ := state.New(nil)
	d := New(Config{State: func() State { return st }, Writer: &storeWriter{st: st}, Clock: newClock(t)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	cancel()
	<-done
}

// TestRoundNodesDrainingTogetherShareBudget drains the two nodes of a
// count-2, max_parallel-1 group at once: one round marks one alloc, not one
// per node.
func TestRoundNodesDrainingTogetherShareBudget(t *testing.T) {
	st, err := state.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	w := &storeWriter{st: st, index: 100}
	d := New(Config{State: func() State { return st }, Writer: w, Clock: newClock(t)})
	job := (&world{jobs: map[structs.NamespacedID]*structs.Job{}}).job("web", structs.JobTypeService, 2, 1)
	if err := st.UpsertJob(1, job, nil); err != nil {
		t.Fatal(err)
	}
	wd := &world{}
	var allocs []*structs.Allocation
	for i, id := range []string{"n1", "n2"} {
		if err := st.UpsertNode(2, &structs.Node{ID: id, Status: structs.NodeStatusReady}); err != nil {
			t.Fatal(err)
		}
		a := wd.alloc(job, uint(i), id, t0.Add(-time.Hour))
		a.EvalID = "e"
		allocs = append(allocs, a)
	}
	if err := st.UpsertAllocs(3, allocs); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"n1", "n2"} {
		if err := st.UpdateNodeDrain(4, id, structs.NewDrainStrategy(structs.DrainSpec{Deadline: time.Hour}, t0), false, nil, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Round(nil); err != nil {
		t.Fatal(err)
	}
	marked := 0
	for _, a := range allocs {
		if got, _ := st.AllocByID(nil, a.ID); got.DesiredTransition.ShouldMigrate() {
			marked++
		}
	}
	if marked != 1 {
		t.Fatalf("marked %d allocs, want 1", marked)
	}
}
