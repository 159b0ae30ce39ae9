package base

import (
	"context"
	"errors"
	"syscall"
	"testing"
)

type fakeTask struct {
	name string
	exit *Exit
}

func newFakeTable() *Table[fakeTask] {
	return NewTable(func(t *fakeTask) *Exit { return t.exit })
}

func TestTableGetAddDelete(t *testing.T) {
	tb := newFakeTable()
	_, err := tb.Get("a")
	if !errors.Is(err, ErrTaskNotFound) || err.Error() != `task "a": drivers: task not found` {
		t.Fatalf("Get of a missing task: %v", err)
	}
	a := &fakeTask{name: "a", exit: NewExit()}
	if err := tb.Add("a", a); err != nil {
		t.Fatal(err)
	}
	err = tb.Add("a", &fakeTask{})
	if !errors.Is(err, ErrTaskExists) || err.Error() != `task "a": drivers: task already exists` {
		t.Fatalf("second Add: %v", err)
	}
	if got, err := tb.Get("a"); err != nil || got != a {
		t.Fatalf("Get: %v %v", got, err)
	}
	tb.Delete("a")
	if _, err := tb.Get("a"); !errors.Is(err, ErrTaskNotFound) {
		t.Fatalf("Get after Delete: %v", err)
	}
}

// While start runs the ID is held: Get misses it, Add and a second Start
// are refused, List skips it. A failed start frees the ID.
func TestTableStartReserves(t *testing.T) {
	tb := newFakeTable()
	boom := errors.New("boom")
	_, err := tb.Start("a", func() (*fakeTask, error) {
		if _, err := tb.Get("a"); !errors.Is(err, ErrTaskNotFound) {
			t.Errorf("Get while starting: %v", err)
		}
		if err := tb.Add("a", &fakeTask{}); !errors.Is(err, ErrTaskExists) {
			t.Errorf("Add while starting: %v", err)
		}
		if _, err := tb.Start("a", func() (*fakeTask, error) { return &fakeTask{}, nil }); !errors.Is(err, ErrTaskExists) {
			t.Errorf("Start while starting: %v", err)
		}
		if l := tb.List(); len(l) != 0 {
			t.Errorf("List while starting: %v", l)
		}
		return nil, boom
	})
	if err != boom {
		t.Fatalf("Start: %v, want start's error unchanged", err)
	}
	a := &fakeTask{name: "a", exit: NewExit()}
	got, err := tb.Start("a", func() (*fakeTask, error) { return a, nil })
	if err != nil || got != a {
		t.Fatalf("Start after a failed one: %v %v", got, err)
	}
	if l := tb.List(); len(l) != 1 || l[0] != a {
		t.Fatalf("List: %v", l)
	}
}

func TestTableAddNew(t *testing.T) {
	tb := newFakeTable()
	a := &fakeTask{name: "a"}
	if !tb.AddNew("a", func() *fakeTask { return a }) {
		t.Fatal("AddNew of a free ID did not add")
	}
	if tb.AddNew("a", func() *fakeTask { t.Fatal("build called for a held ID"); return nil }) {
		t.Fatal("AddNew of a held ID added")
	}
	if got, _ := tb.Get("a"); got != a {
		t.Fatalf("Get: %v", got)
	}
}

func TestTableWaitStop(t *testing.T) {
	tb := newFakeTable()
	a := &fakeTask{name: "a", exit: NewExit()}
	_ = tb.Add("a", a)
	if _, err := tb.Wait(context.Background(), "b"); !errors.Is(err, ErrTaskNotFound) {
		t.Fatalf("Wait of a missing task: %v", err)
	}
	ch, err := tb.Wait(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	var got syscall.Signal
	stop := func(t *fakeTask, sig syscall.Signal) error {
		got = sig
		t.exit.Set(&ExitResult{Signal: int(sig)})
		return nil
	}
	if err := tb.Stop("a", "", stop); err != nil || got != syscall.SIGTERM {
		t.Fatalf("Stop with no signal: %v, sent %v", err, got)
	}
	if res := <-ch; res == nil || res.Signal != int(syscall.SIGTERM) {
		t.Fatalf("Wait: %+v", res)
	}
	if err := tb.Stop("a", "HUP", stop); err != nil || got != syscall.SIGHUP {
		t.Fatalf("Stop HUP: %v, sent %v", err, got)
	}
	if err := tb.Stop("a", "BOGUS", stop); err == nil || err.Error() != `drivers: unknown signal "BOGUS"` {
		t.Fatalf("Stop with a bad signal: %v", err)
	}
	if err := tb.Stop("b", "", stop); !errors.Is(err, ErrTaskNotFound) {
		t.Fatalf("Stop of a missing task: %v", err)
	}
}

func TestTableDestroy(t *testing.T) {
	tb := newFakeTable()
	a := &fakeTask{name: "a", exit: NewExit()}
	_ = tb.Add("a", a)
	kills := 0
	kill := func(t *fakeTask) error { kills++; t.exit.Set(&ExitResult{Signal: 9}); return nil }
	err := tb.Destroy("a", false, kill, nil)
	if !errors.Is(err, ErrTaskRunning) || err.Error() != `task "a": drivers: task is still running` || kills != 0 {
		t.Fatalf("Destroy of a running task without force: %v (kills %d)", err, kills)
	}
	held := errors.New("busy")
	if err := tb.Destroy("a", true, kill, func(*fakeTask) error { return held }); err != held || kills != 1 {
		t.Fatalf("Destroy whose release fails: %v (kills %d)", err, kills)
	}
	if _, err := tb.Get("a"); err != nil {
		t.Fatalf("a task whose release failed was forgotten: %v", err)
	}
	released := false
	if err := tb.Destroy("a", false, kill, func(*fakeTask) error { released = true; return nil }); err != nil || !released || kills != 1 {
		t.Fatalf("Destroy of an exited task: %v released %v kills %d", err, released, kills)
	}
	if _, err := tb.Get("a"); !errors.Is(err, ErrTaskNotFound) {
		t.Fatalf("destroyed task still there: %v", err)
	}
	b := &fakeTask{name: "b", exit: NewExit()}
	_ = tb.Add("b", b)
	failed := errors.New("kill failed")
	if err := tb.Destroy("b", true, func(*fakeTask) error { return failed }, nil); err != failed {
		t.Fatalf("Destroy whose kill fails: %v", err)
	}
}
