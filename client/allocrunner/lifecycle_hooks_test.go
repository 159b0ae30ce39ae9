package allocrunner_test

import (
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/client/allocrunner"
	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/client/state"
	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/structs"
)

// order returns the driver's start and stop calls as "start <task>" and
// "stop <task>", in order.
func order(drv *clienttest.FakeDriver) []string {
	var out []string
	for _, c := range drv.Calls() {
		f := strings.Fields(c)
		if len(f) < 2 || (f[0] != "start" && f[0] != "stop") {
			continue
		}
		out = append(out, f[0]+" "+strings.Split(f[1], "/")[1])
	}
	return out
}

func index(t *testing.T, calls []string, call string) int {
	t.Helper()
	for i, c := range calls {
		if c == call {
			return i
		}
	}
	t.Fatalf("no %q in %v", call, calls)
	return -1
}

func before(t *testing.T, calls []string, a, b string) {
	t.Helper()
	if index(t, calls, a) >= index(t, calls, b) {
		t.Fatalf("%q not before %q: %v", a, b, calls)
	}
}

func lc(hook string, sidecar bool) *structs.TaskLifecycleConfig {
	return &structs.TaskLifecycleConfig{Hook: hook, Sidecar: sidecar}
}

func hasEvent(s *structs.TaskState, typ string) bool {
	for _, e := range s.Events {
		if e.Type == typ {
			return true
		}
	}
	return false
}

// A service group with every kind of task: the prestart task runs to
// completion (exit 0, not restarted although the job is a service) before
// main starts, the sidecar starts before main and stops after it, the
// poststart task starts once main runs, the poststop task runs after a stop
// once the others are dead.
func TestLifecycleOrderServiceStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		u := &updates{}
		alloc := newAlloc(structs.JobTypeService,
			&structs.Task{Name: "main", Driver: "mock"},
			&structs.Task{Name: "init", Driver: "mock", Lifecycle: lc("prestart", false), Config: map[string]any{"run_for": "2s"}},
			&structs.Task{Name: "side", Driver: "mock", Lifecycle: lc("prestart", true)},
			&structs.Task{Name: "post", Driver: "mock", Lifecycle: lc("poststart", false), Config: map[string]any{"run_for": "1s"}},
			&structs.Task{Name: "cleanup", Driver: "mock", Lifecycle: lc("poststop", false), Config: map[string]any{"run_for": "1s"}},
		)
		drv := clienttest.NewFakeDriver()
		ar := start(t, alloc, drv, u)
		synctest.Wait()
		if s := ar.TaskState("main"); s.State != structs.TaskStatePending || !hasEvent(s, structs.TaskWaitingForLifecycle) {
			t.Fatalf("main while init runs: %+v", s)
		}
		if got := ar.Alloc().ClientStatus; got != structs.AllocClientStatusRunning {
			t.Fatalf("status %s", got)
		}
		time.Sleep(3 * time.Second) // synctest: fake time; init exits at 2s, post 1s after main starts
		synctest.Wait()
		if s := ar.TaskState("init"); s.State != structs.TaskStateDead || s.Failed || s.Restarts != 0 {
			t.Fatalf("init %+v", s)
		}
		if s := ar.TaskState("main"); s.State != structs.TaskStateRunning {
			t.Fatalf("main %+v", s)
		}
		if got := ar.Alloc().ClientStatus; got != structs.AllocClientStatusRunning {
			t.Fatalf("status with init done: %s", got)
		}
		if s := ar.TaskState("cleanup"); s.State != structs.TaskStatePending {
			t.Fatalf("cleanup before stop %+v", s)
		}
		stop := *alloc
		stop.DesiredStatus = structs.AllocDesiredStatusStop
		ar.Update(&stop)
		<-ar.WaitCh()
		calls := order(drv)
		before(t, calls, "start side", "start main")
		before(t, calls, "start main", "start post")
		before(t, calls, "stop main", "stop side")
		before(t, calls, "stop side", "start cleanup")
		if index(t, calls, "start init") != 0 && index(t, calls, "start side") != 0 {
			t.Fatalf("a prestart task is not first: %v", calls)
		}
		if n := strings.Count(strings.Join(calls, ","), "start init"); n != 1 {
			t.Fatalf("init started %d times: %v", n, calls)
		}
		last := u.last()
		if last.ClientStatus != structs.AllocClientStatusComplete {
			t.Fatalf("status %s", last.ClientStatus)
		}
		if s := last.TaskStates["cleanup"]; s.State != structs.TaskStateDead || s.Failed || s.StartedAt.IsZero() {
			t.Fatalf("cleanup %+v", s)
		}
	})
}

// In a batch job, the sidecar is killed once the main task is done, with
// the event "Main Tasks Dead", and the allocation completes.
func TestLifecycleSidecarStoppedAfterMain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		u := &updates{}
		alloc := newAlloc(structs.JobTypeBatch,
			&structs.Task{Name: "main", Driver: "mock", Config: map[string]any{"run_for": "5s"}},
			&structs.Task{Name: "side", Driver: "mock", Lifecycle: lc("prestart", true)},
			&structs.Task{Name: "after", Driver: "mock", Lifecycle: lc("poststart", true)},
		)
		drv := clienttest.NewFakeDriver()
		ar := start(t, alloc, drv, u)
		<-ar.WaitCh()
		calls := order(drv)
		before(t, calls, "start side", "start main")
		before(t, calls, "start main", "start after")
		if s := ar.TaskState("side"); !hasEvent(s, structs.TaskMainDead) || s.Failed {
			t.Fatalf("side %+v", s)
		}
		if got := u.last().ClientStatus; got != structs.AllocClientStatusComplete {
			t.Fatalf("status %s", got)
		}
	})
}

// A prestart task that fails past its restart policy fails the allocation:
// the main task never starts, the poststop task still runs.
func TestLifecycleFailedPrestartFailsAlloc(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		u := &updates{}
		alloc := newAlloc(structs.JobTypeService,
			&structs.Task{Name: "main", Driver: "mock"},
			&structs.Task{Name: "init", Driver: "mock", Lifecycle: lc("prestart", false),
				Config: map[string]any{"run_for": "1s", "exit_code": 3}},
			&structs.Task{Name: "cleanup", Driver: "mock", Lifecycle: lc("poststop", false), Config: map[string]any{"run_for": "1s"}},
		)
		alloc.Job.TaskGroups[0].Tasks[1].RestartPolicy = &structs.RestartPolicy{Attempts: 1, Interval: time.Hour, Delay: time.Second, Mode: "fail"}
		drv := clienttest.NewFakeDriver()
		ar := start(t, alloc, drv, u)
		<-ar.WaitCh()
		calls := order(drv)
		if n := strings.Count(strings.Join(calls, ","), "start init"); n != 2 {
			t.Fatalf("init started %d times, want 2 (one restart): %v", n, calls)
		}
		for _, c := range calls {
			if c == "start main" {
				t.Fatalf("main started: %v", calls)
			}
		}
		index(t, calls, "start cleanup")
		last := u.last()
		if last.ClientStatus != structs.AllocClientStatusFailed {
			t.Fatalf("status %s", last.ClientStatus)
		}
		if s := last.TaskStates["main"]; s.State != structs.TaskStateDead || !s.StartedAt.IsZero() || !hasEvent(s, structs.TaskSiblingFailed) {
			t.Fatalf("main %+v", s)
		}
	})
}

// The leader's exit kills the other tasks (Nomad's leader rule), whatever
// their lifecycle, but the poststop task still runs.
func TestLifecycleLeaderDead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		u := &updates{}
		alloc := newAlloc(structs.JobTypeBatch,
			&structs.Task{Name: "lead", Driver: "mock", Leader: true, Config: map[string]any{"run_for": "2s"}},
			&structs.Task{Name: "other", Driver: "mock"},
			&structs.Task{Name: "cleanup", Driver: "mock", Lifecycle: lc("poststop", false), Config: map[string]any{"run_for": "1s"}},
		)
		drv := clienttest.NewFakeDriver()
		ar := start(t, alloc, drv, u)
		<-ar.WaitCh()
		if s := ar.TaskState("other"); !hasEvent(s, structs.TaskLeaderDead) || s.Failed {
			t.Fatalf("other %+v", s)
		}
		before(t, order(drv), "stop other", "start cleanup")
		if got := u.last().ClientStatus; got != structs.AllocClientStatusComplete {
			t.Fatalf("status %s", got)
		}
	})
}

// The group's shutdown_delay holds the kill back after a stop, with the
// event "Waiting for shutdown delay"; the task's own delay adds to it.
func TestGroupAndTaskShutdownDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		u := &updates{}
		alloc := newAlloc(structs.JobTypeService, &structs.Task{Name: "web", Driver: "mock", ShutdownDelay: 2 * time.Second})
		d := 3 * time.Second
		alloc.Job.TaskGroups[0].ShutdownDelay = &d
		drv := clienttest.NewFakeDriver()
		ar := start(t, alloc, drv, u)
		synctest.Wait()
		stop := *alloc
		stop.DesiredStatus = structs.AllocDesiredStatusStop
		t0 := time.Now()
		ar.Update(&stop)
		time.Sleep(4 * time.Second)
		synctest.Wait()
		if len(order(drv)) != 1 { // only the start: 3s group + 2s task not over
			t.Fatalf("killed before the delays: %v", order(drv))
		}
		<-ar.WaitCh()
		if took := time.Since(t0); took != 5*time.Second {
			t.Fatalf("stopped after %v, want 5s", took)
		}
		n := 0
		for _, e := range ar.TaskState("web").Events {
			if e.Type == structs.TaskWaitingShuttingDownDelay {
				n++
			}
		}
		if n != 2 {
			t.Fatalf("%d shutdown delay events, want 2", n)
		}
	})
}

// A client restart re-attaches to the running main task and does not run
// the completed prestart task again; the poststop task still runs on stop.
func TestLifecycleReattachSkipsCompletedPrestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		db, err := state.Open(filepath.Join(dir, "state.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		alloc := newAlloc(structs.JobTypeService,
			&structs.Task{Name: "main", Driver: "mock"},
			&structs.Task{Name: "init", Driver: "mock", Lifecycle: lc("prestart", false), Config: map[string]any{"run_for": "1s"}},
			&structs.Task{Name: "cleanup", Driver: "mock", Lifecycle: lc("poststop", false), Config: map[string]any{"run_for": "1s"}},
		)
		drv := clienttest.NewFakeDriver()
		cfg := allocrunner.Config{Alloc: alloc, AllocRoot: dir, State: db,
			Drivers: func(string) (taskrunner.Driver, error) { return drv, nil }}
		ar1, err := allocrunner.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ar1.Run()
		time.Sleep(2 * time.Second)
		synctest.Wait()
		ar1.Shutdown() // the client goes away; the tasks keep running
		u := &updates{}
		cfg.OnUpdate = u.add
		ar2, err := allocrunner.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ar2.Run()
		synctest.Wait()
		if s := ar2.TaskState("main"); s.State != structs.TaskStateRunning {
			t.Fatalf("main after restart %+v", s)
		}
		stop := *alloc
		stop.DesiredStatus = structs.AllocDesiredStatusStop
		ar2.Update(&stop)
		<-ar2.WaitCh()
		calls := order(drv)
		if got := strings.Join(calls, ","); got != "start init,start main,stop main,start cleanup" {
			t.Fatalf("calls %s", got)
		}
		if got := u.last().ClientStatus; got != structs.AllocClientStatusComplete {
			t.Fatalf("status %s", got)
		}
	})
}

// A stop that reached a restarted client (the client was down when the
// job was stopped) still stops in order: the poststop task runs.
func TestLifecycleStopWhileClientDownRunsPoststop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		db, err := state.Open(filepath.Join(dir, "state.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		alloc := newAlloc(structs.JobTypeService,
			&structs.Task{Name: "main", Driver: "mock"},
			&structs.Task{Name: "cleanup", Driver: "mock", Lifecycle: lc("poststop", false), Config: map[string]any{"run_for": "1s"}},
		)
		drv := clienttest.NewFakeDriver()
		cfg := allocrunner.Config{Alloc: alloc, AllocRoot: dir, State: db,
			Drivers: func(string) (taskrunner.Driver, error) { return drv, nil }}
		ar1, err := allocrunner.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ar1.Run()
		synctest.Wait()
		ar1.Shutdown()
		stopped := *alloc
		stopped.DesiredStatus = structs.AllocDesiredStatusStop
		cfg.Alloc = &stopped
		ar2, err := allocrunner.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ar2.Run()
		<-ar2.WaitCh()
		if got := strings.Join(order(drv), ","); got != "start main,stop main,start cleanup" {
			t.Fatalf("calls %s", got)
		}
	})
}
