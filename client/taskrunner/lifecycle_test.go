package taskrunner_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/structs"
)

// The task's restart block wins over the group's: no attempts fails the
// task at its first failure although the group allows five.
func TestTaskRestartOverridesGroup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := &structs.Task{Name: "t", Driver: "mock", Config: map[string]any{"run_for": "1s", "exit_code": 1},
			RestartPolicy: &structs.RestartPolicy{Attempts: 0, Interval: time.Hour, Delay: time.Second, Mode: structs.RestartPolicyModeFail}}
		group := &structs.RestartPolicy{Attempts: 5, Interval: time.Hour, Delay: time.Second, Mode: structs.RestartPolicyModeFail}
		drv := clienttest.NewFakeDriver()
		tr := newRunner(t, testAlloc(structs.JobTypeService, task, group), drv, nil, t.TempDir())
		go tr.Run()
		<-tr.WaitCh()
		if s := tr.State(); !s.Failed || s.Restarts != 0 || len(drv.Started()) != 1 {
			t.Fatalf("state %+v, %d starts", s, len(drv.Started()))
		}
	})
}

// Without its own block the task follows the group's policy.
func TestTaskWithoutRestartFollowsGroup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := &structs.Task{Name: "t", Driver: "mock", Config: map[string]any{"run_for": "1s", "exit_code": 1}}
		group := &structs.RestartPolicy{Attempts: 2, Interval: time.Hour, Delay: time.Second, Mode: structs.RestartPolicyModeFail}
		drv := clienttest.NewFakeDriver()
		tr := newRunner(t, testAlloc(structs.JobTypeService, task, group), drv, nil, t.TempDir())
		go tr.Run()
		<-tr.WaitCh()
		if s := tr.State(); !s.Failed || s.Restarts != 2 || len(drv.Started()) != 3 {
			t.Fatalf("state %+v, %d starts", s, len(drv.Started()))
		}
	})
}

// A prestart task that is not a sidecar is done at exit 0, even in a
// service job; a sidecar is restarted.
func TestPrestartExitZeroDone(t *testing.T) {
	for _, sidecar := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			task := &structs.Task{Name: "t", Driver: "mock", Config: map[string]any{"run_for": "1s"},
				Lifecycle: &structs.TaskLifecycleConfig{Hook: structs.TaskLifecycleHookPrestart, Sidecar: sidecar}}
			drv := clienttest.NewFakeDriver()
			tr := newRunner(t, testAlloc(structs.JobTypeService, task, nil), drv, nil, t.TempDir())
			go tr.Run()
			time.Sleep(16500 * time.Millisecond) // exit at 1s, 15s restart delay, second start at 16s
			synctest.Wait()
			s := tr.State()
			if !sidecar && (s.State != structs.TaskStateDead || s.Failed || len(drv.Started()) != 1) {
				t.Fatalf("prestart: %+v, %d starts", s, len(drv.Started()))
			}
			if sidecar && (s.Restarts != 1 || len(drv.Started()) != 2) {
				t.Fatalf("sidecar: %+v, %d starts", s, len(drv.Started()))
			}
			tr.Kill()
			<-tr.WaitCh()
		})
	}
}

// The task's shutdown_delay comes between the kill and the kill signal,
// with the event "Waiting for shutdown delay".
func TestTaskShutdownDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		task := &structs.Task{Name: "t", Driver: "mock", ShutdownDelay: 4 * time.Second, KillSignal: "SIGINT"}
		drv := clienttest.NewFakeDriver()
		tr := newRunner(t, testAlloc(structs.JobTypeService, task, nil), drv, nil, t.TempDir())
		go tr.Run()
		synctest.Wait()
		t0 := time.Now()
		tr.Kill()
		time.Sleep(3 * time.Second)
		synctest.Wait()
		if strings.Contains(strings.Join(drv.Calls(), ","), "stop ") {
			t.Fatalf("stopped before the delay: %v", drv.Calls())
		}
		<-tr.WaitCh()
		if took := time.Since(t0); took != 4*time.Second {
			t.Fatalf("killed after %v", took)
		}
		if got, want := eventTypes(tr.State()), "Waiting for shutdown delay,Killing,Killed"; !strings.HasSuffix(got, want) {
			t.Fatalf("events %s", got)
		}
		var stop string
		for _, c := range drv.Calls() {
			if strings.HasPrefix(c, "stop ") {
				stop = c
			}
		}
		if !strings.HasSuffix(stop, " SIGINT") {
			t.Fatalf("stop call %q does not carry the kill signal", stop)
		}
	})
}
