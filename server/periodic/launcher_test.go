package periodic

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/internal/clock/clocktest"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// harness is a real state store written as the FSM would (one index per
// launch), the fake clock and a launcher over them.
type harness struct {
	st    *state.StateStore
	clk   *clocktest.FakeClock
	l     *Launcher
	index uint64
}

func newHarness(t *testing.T, cfg *structs.PeriodicConfig) *harness {
	t.Helper()
	st, err := state.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{st: st, clk: clocktest.NewFakeClock(), index: 1}
	job := structstest.Job("cron")
	job.Type = structs.JobTypeBatch
	job.Periodic = cfg
	job.Canonicalize()
	job.SubmitTime = h.clk.Now().UnixNano()
	if err := st.UpsertJob(h.index, job, nil); err != nil {
		t.Fatal(err)
	}
	h.l = h.newLauncher(t)
	return h
}

// newLauncher is a launcher over the same state: a new leader.
func (h *harness) newLauncher(t *testing.T) *Launcher {
	l, err := New(Config{State: func() State { return h.st }, Clock: h.clk,
		Apply: func(r *structs.PeriodicLaunchRequest) error {
			h.index++
			return h.st.UpsertPeriodicLaunch(h.index, r.Launch, r.Child, r.Eval)
		}})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func (h *harness) children(t *testing.T) []string {
	t.Helper()
	cs, err := h.st.JobChildren(nil, "default", "cron")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cs {
		if c.Periodic != nil || c.ParentID != "cron" {
			t.Fatalf("child %s: periodic %v parent %q", c.ID, c.Periodic, c.ParentID)
		}
		ids = append(ids, c.ID)
	}
	return ids
}

func (h *harness) round(t *testing.T, l *Launcher) time.Time {
	t.Helper()
	next, err := l.Round(memdb.NewWatchSet())
	if err != nil {
		t.Fatal(err)
	}
	return next
}

func TestLauncherLaunchesOnceAcrossLeaders(t *testing.T) {
	h := newHarness(t, &structs.PeriodicConfig{Enabled: true, Spec: "*/2 * * * * * *"})
	t0 := h.clk.Now()
	if next := h.round(t, h.l); !next.Equal(t0.Add(2 * time.Second)) {
		t.Fatalf("next = %v", next)
	}
	if got := h.children(t); len(got) != 0 {
		t.Fatalf("launched before due: %v", got)
	}
	h.clk.Advance(2 * time.Second)
	h.round(t, h.l)
	h.round(t, h.l) // a second round at the same instant launches nothing
	want := []string{structs.PeriodicChildID("cron", t0.Add(2*time.Second))}
	if got := h.children(t); len(got) != 1 || got[0] != want[0] {
		t.Fatalf("children = %v, want %v", got, want)
	}
	// The leader dies; an election takes 5s; the new leader launches the
	// launch due during it once (the latest, at +6s), and nothing twice.
	h.clk.Advance(5 * time.Second)
	l2 := h.newLauncher(t)
	h.round(t, l2)
	h.round(t, l2)
	want = append(want, structs.PeriodicChildID("cron", t0.Add(6*time.Second)))
	if got := h.children(t); len(got) != 2 || got[1] != want[1] {
		t.Fatalf("children = %v, want %v", got, want)
	}
	// The old leader's launch replayed (an entry committed twice) is a no-op.
	replay := structs.NewPeriodicLaunch(mustJob(t, h.st), t0.Add(2*time.Second), h.clk.Now())
	if err := h.st.UpsertPeriodicLaunch(100, replay.Launch, replay.Child, replay.Eval); err != nil {
		t.Fatal(err)
	}
	if got := h.children(t); len(got) != 2 {
		t.Fatalf("replay made a child: %v", got)
	}
	last, _ := h.st.PeriodicLaunchByID(nil, "default", "cron")
	if !last.Launch.Equal(t0.Add(6 * time.Second)) {
		t.Fatalf("last launch went back to %v", last.Launch)
	}
}

func TestLauncherProhibitOverlap(t *testing.T) {
	h := newHarness(t, &structs.PeriodicConfig{Enabled: true, Spec: "*/2 * * * * * *", ProhibitOverlap: true})
	h.clk.Advance(2 * time.Second)
	h.round(t, h.l)
	if got := h.children(t); len(got) != 1 {
		t.Fatalf("children = %v", got)
	}
	// The child is pending (not dead): the next launch is skipped, but
	// recorded, so it is not launched late once the child ends.
	h.clk.Advance(2 * time.Second)
	h.round(t, h.l)
	if got := h.children(t); len(got) != 1 {
		t.Fatalf("overlap launched: %v", got)
	}
	last, _ := h.st.PeriodicLaunchByID(nil, "default", "cron")
	if !last.Launch.Equal(h.clk.Now()) {
		t.Fatalf("skipped launch not recorded: %v", last.Launch)
	}
}

func TestLauncherIgnoresDisabledAndStopped(t *testing.T) {
	h := newHarness(t, &structs.PeriodicConfig{Enabled: false, Spec: "*/2 * * * * * *"})
	h.clk.Advance(10 * time.Second)
	if next := h.round(t, h.l); !next.IsZero() {
		t.Fatalf("next = %v for a disabled job", next)
	}
	if got := h.children(t); len(got) != 0 {
		t.Fatalf("disabled job launched: %v", got)
	}
}

func mustJob(t *testing.T, st *state.StateStore) *structs.Job {
	t.Helper()
	j, err := st.JobByID(nil, "default", "cron")
	if err != nil || j == nil {
		t.Fatal(j, err)
	}
	return j
}

// Run launches on the clock: the timer armed for the next launch fires on
// Advance and the child appears; cancelling ctx ends Run.
func TestLauncherRunOnClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, &structs.PeriodicConfig{Enabled: true, Spec: "*/2 * * * * * *"})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { h.l.Run(ctx); close(done) }()
		synctest.Wait() // Run armed its timer for +2s
		if got := h.children(t); len(got) != 0 {
			t.Fatalf("launched early: %v", got)
		}
		h.clk.Advance(2 * time.Second)
		synctest.Wait()
		h.clk.Advance(2 * time.Second)
		synctest.Wait()
		if got := h.children(t); len(got) != 2 {
			t.Fatalf("children after two periods = %v", got)
		}
		cancel()
		<-done
	})
}
