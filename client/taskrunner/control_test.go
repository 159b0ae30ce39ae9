package taskrunner_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/client/state"
	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/structs"
)

// eventOf returns the newest event of type typ, or nil.
func eventOf(s *structs.TaskState, typ string) *structs.TaskEvent {
	for i := len(s.Events) - 1; i >= 0; i-- {
		if s.Events[i].Type == typ {
			return s.Events[i]
		}
	}
	return nil
}

func TestSignalRunningTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		drv := clienttest.NewFakeDriver()
		task := &structs.Task{Name: "t", Driver: "mock"}
		tr := newRunner(t, testAlloc(structs.JobTypeService, task, nil), drv, nil, t.TempDir())
		if err := tr.Signal("SIGUSR1"); !errors.Is(err, taskrunner.ErrTaskNotRunning) {
			t.Fatalf("signal before start: %v, want ErrTaskNotRunning", err)
		}
		go tr.Run()
		synctest.Wait()
		id := tr.Handle().Config.ID
		if err := tr.Signal("usr1"); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(drv.Calls(), "signal "+id+" SIGUSR1") {
			t.Fatalf("calls = %v", drv.Calls())
		}
		ev := eventOf(tr.State(), structs.TaskSignaling)
		if ev == nil || ev.DisplayMessage != "Task being sent signal SIGUSR1" || ev.Details["signal"] != "SIGUSR1" {
			t.Fatalf("signaling event = %+v", ev)
		}
		if err := tr.Signal("SIGBOGUS"); !errors.Is(err, taskrunner.ErrBadSignal) {
			t.Fatalf("bad signal: %v", err)
		}
		if err := tr.Signal(""); !errors.Is(err, taskrunner.ErrBadSignal) {
			t.Fatalf("empty signal: %v", err)
		}
		tr.Kill()
		<-tr.WaitCh()
		if err := tr.Signal("SIGHUP"); !errors.Is(err, taskrunner.ErrTaskNotRunning) {
			t.Fatalf("signal after death: %v, want ErrTaskNotRunning", err)
		}
	})
}

// TestUserRestartOutsidePolicy restarts a running task: it runs again as a
// new instance, the events say why, and the restart policy (1 attempt) is
// untouched: a later failure is still restarted within policy.
func TestUserRestartOutsidePolicy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		drv := clienttest.NewFakeDriver()
		task := &structs.Task{Name: "t", Driver: "mock", KillTimeout: time.Second}
		rp := &structs.RestartPolicy{Attempts: 1, Interval: time.Hour, Delay: time.Second, Mode: structs.RestartPolicyModeFail}
		tr := newRunner(t, testAlloc(structs.JobTypeService, task, rp), drv, nil, t.TempDir())
		go tr.Run()
		synctest.Wait()
		first := tr.Handle().Config.ID
		if err := tr.Restart(context.Background()); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		s := tr.State()
		second := tr.Handle().Config.ID
		if s.State != structs.TaskStateRunning || second == first || len(drv.Started()) != 2 {
			t.Fatalf("state %s, ids %s -> %s, started %d", s.State, first, second, len(drv.Started()))
		}
		want := "Received,Task Setup,Started,Restart Signaled,Terminated,Restarting,Started"
		if got := eventTypes(s); got != want {
			t.Fatalf("events %s, want %s", got, want)
		}
		if ev := eventOf(s, structs.TaskRestartSignal); ev.DisplayMessage != "User requested running tasks to restart" {
			t.Fatalf("restart event %+v", ev)
		}
		if ev := eventOf(s, structs.TaskRestarting); ev.StartDelay != 0 || ev.DisplayMessage != "Task restarting in 0s" {
			t.Fatalf("restarting event %+v", ev)
		}
		if s.Restarts != 1 || !slices.Contains(drv.Calls(), "stop "+first+" 1s ") {
			t.Fatalf("restarts %d, calls %v", s.Restarts, drv.Calls())
		}
		// The policy still allows its one attempt.
		drv.Exit(second, 1)
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if s := tr.State(); s.State != structs.TaskStateRunning || len(drv.Started()) != 3 {
			t.Fatalf("after a failure: state %s failed=%v started %d, events %s", s.State, s.Failed, len(drv.Started()), eventTypes(s))
		}
		tr.Kill()
		<-tr.WaitCh()
		if err := tr.Restart(context.Background()); !errors.Is(err, taskrunner.ErrTaskNotRunning) {
			t.Fatalf("restart of a dead task: %v", err)
		}
	})
}

// TestStatsKeptAndStopped: the runner keeps the driver's latest sample
// while the task runs, asks again when the stream breaks (plugin crash),
// follows a restart, and forgets the usage when the task is gone.
func TestStatsKeptAndStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		drv := clienttest.NewFakeDriver()
		task := &structs.Task{Name: "t", Driver: "mock"}
		tr := newRunner(t, testAlloc(structs.JobTypeService, task, nil), drv, nil, t.TempDir())
		if tr.Stats() != nil {
			t.Fatal("stats before start")
		}
		go tr.Run()
		synctest.Wait()
		id := tr.Handle().Config.ID
		u := tr.Stats()
		if u == nil || u.Memory.RSS != clienttest.FakeRSS || u.CPU.Percent != 5 {
			t.Fatalf("stats = %+v", u)
		}
		drv.DropStatsStreams() // the plugin died under the stream
		time.Sleep(taskrunner.StatsInterval)
		synctest.Wait()
		if n := drv.StatsCalls(id); n != 2 || drv.OpenStatsStreams() != 1 || tr.Stats() == nil {
			t.Fatalf("after a broken stream: %d calls, %d open, stats %v", n, drv.OpenStatsStreams(), tr.Stats())
		}
		if err := tr.Restart(context.Background()); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if n := drv.StatsCalls(tr.Handle().Config.ID); n != 1 || drv.OpenStatsStreams() != 1 || tr.Stats() == nil {
			t.Fatalf("after restart: %d calls, %d open", n, drv.OpenStatsStreams())
		}
		tr.Kill()
		<-tr.WaitCh()
		if tr.Stats() != nil || drv.OpenStatsStreams() != 0 {
			t.Fatalf("after kill: stats %v, %d streams open", tr.Stats(), drv.OpenStatsStreams())
		}
	})
}

// TestStatsAfterRecover: a runner that re-attaches to a task (client
// restart) collects its stats again.
func TestStatsAfterRecover(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		drv := clienttest.NewFakeDriver()
		task := &structs.Task{Name: "t", Driver: "mock"}
		alloc := testAlloc(structs.JobTypeService, task, nil)
		db := openDB(t)
		dir := t.TempDir()
		tr1 := newRunner(t, alloc, drv, db, dir)
		go tr1.Run()
		synctest.Wait()
		tr1.Detach()
		<-tr1.WaitCh()
		if drv.OpenStatsStreams() != 0 {
			t.Fatal("detached runner left its stats stream open")
		}
		tr2 := newRunner(t, alloc, drv, db, dir)
		go tr2.Run()
		synctest.Wait()
		if tr2.Stats() == nil || drv.OpenStatsStreams() != 1 {
			t.Fatalf("recovered: stats %v, %d open", tr2.Stats(), drv.OpenStatsStreams())
		}
		tr2.Kill()
		<-tr2.WaitCh()
	})
}

func openDB(t *testing.T) *state.DB {
	t.Helper()
	db, err := state.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
