package taskrunner_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/client/allocdir"
	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/client/state"
	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

func testAlloc(jobType string, task *structs.Task, rp *structs.RestartPolicy) *structs.Allocation {
	job := &structs.Job{ID: "example", Name: "example", Type: jobType, TaskGroups: []*structs.TaskGroup{{
		Name: "g", Count: 1, Tasks: []*structs.Task{task}, RestartPolicy: rp,
	}}}
	job.Canonicalize()
	return &structs.Allocation{ID: "a1", Name: "example.g[3]", JobID: "example", Job: job, TaskGroup: "g",
		Namespace: "default", AllocatedResources: structs.AllocatedFor(job.TaskGroups[0])}
}

func newRunner(t *testing.T, alloc *structs.Allocation, drv taskrunner.Driver, db taskrunner.StateDB, dir string) *taskrunner.TaskRunner {
	t.Helper()
	return newRunnerWith(t, alloc, drv, func(c *taskrunner.Config) { c.State = db }, dir)
}

// newRunnerWith builds a runner in dir (a temp dir when omitted), letting
// adjust change its config.
func newRunnerWith(t *testing.T, alloc *structs.Allocation, drv taskrunner.Driver, adjust func(*taskrunner.Config), dir ...string) *taskrunner.TaskRunner {
	t.Helper()
	root := t.TempDir()
	if len(dir) > 0 {
		root = dir[0]
	}
	ad := allocdir.New(root, alloc.ID)
	if err := ad.Build([]string{alloc.Job.TaskGroups[0].Tasks[0].Name}); err != nil {
		t.Fatal(err)
	}
	cfg := taskrunner.Config{Alloc: alloc, Task: alloc.Job.TaskGroups[0].Tasks[0], AllocDir: ad,
		Driver: drv, Region: "global", Datacenter: "dc1"}
	if adjust != nil {
		adjust(&cfg)
	}
	tr, err := taskrunner.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func eventTypes(s *structs.TaskState) string {
	var out []string
	for _, e := range s.Events {
		out = append(out, e.Type)
	}
	return strings.Join(out, ",")
}

func TestBatchExitZeroCompletes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		drv := clienttest.NewFakeDriver()
		task := &structs.Task{Name: "t", Driver: "mock", Config: map[string]any{"run_for": "1s"}, Env: map[string]string{"FOO": "bar"}}
		tr := newRunner(t, testAlloc(structs.JobTypeBatch, task, nil), drv, nil, t.TempDir())
		go tr.Run()
		<-tr.WaitCh()
		s := tr.State()
		if s.State != structs.TaskStateDead || s.Failed {
			t.Fatalf("state = %s failed=%v", s.State, s.Failed)
		}
		if got, want := eventTypes(s), "Received,Task Setup,Started,Terminated"; got != want {
			t.Fatalf("events = %s, want %s", got, want)
		}
		started := drv.Started()
		if len(started) != 1 {
			t.Fatalf("started %d times", len(started))
		}
		env := started[0].Env
		for k, v := range map[string]string{"FOO": "bar", "NOMAD_ALLOC_ID": "a1", "NOMAD_ALLOC_INDEX": "3", "NOMAD_TASK_NAME": "t",
			"NOMAD_GROUP_NAME": "g", "NOMAD_JOB_NAME": "example", "NOMAD_CPU_LIMIT": "100", "NOMAD_MEMORY_LIMIT": "300", "NOMAD_DC": "dc1", "NOMAD_REGION": "global"} {
			if env[k] != v {
				t.Errorf("env %s = %q, want %q", k, env[k], v)
			}
		}
		if !strings.HasSuffix(started[0].StdoutPath, filepath.Join("a1", "alloc", "logs", "t.stdout")) {
			t.Errorf("stdout path %q", started[0].StdoutPath)
		}
		if !strings.HasSuffix(env["NOMAD_TASK_DIR"], filepath.Join("a1", "t", "local")) {
			t.Errorf("task dir %q", env["NOMAD_TASK_DIR"])
		}
	})
}

func TestFailingTaskRestartsThenFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		drv := clienttest.NewFakeDriver()
		task := &structs.Task{Name: "t", Driver: "mock", Config: map[string]any{"run_for": "1s", "exit_code": 1}}
		rp := &structs.RestartPolicy{Attempts: 1, Interval: time.Hour, Delay: 10 * time.Second, Mode: structs.RestartPolicyModeFail}
		tr := newRunner(t, testAlloc(structs.JobTypeBatch, task, rp), drv, nil, t.TempDir())
		start := time.Now()
		go tr.Run()
		<-tr.WaitCh()
		s := tr.State()
		if s.State != structs.TaskStateDead || !s.Failed || s.Restarts != 1 {
			t.Fatalf("state = %s failed=%v restarts=%d", s.State, s.Failed, s.Restarts)
		}
		want := "Received,Task Setup,Started,Terminated,Restarting,Started,Terminated,Not Restarting"
		if got := eventTypes(s); got != want {
			t.Fatalf("events = %s, want %s", got, want)
		}
		if el := time.Since(start); el != 12*time.Second {
			t.Fatalf("took %v, want 1s run + 10s delay + 1s run", el)
		}
		last := s.Events[len(s.Events)-1]
		if !last.FailsTask || !strings.Contains(last.RestartReason, "Exceeded allowed attempts 1") {
			t.Fatalf("last event %+v", last)
		}
	})
}

func TestKillWithTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		drv := clienttest.NewFakeDriver()
		task := &structs.Task{Name: "t", Driver: "mock", Config: map[string]any{"ignore_signal": true},
			KillTimeout: 3 * time.Second, KillSignal: "SIGINT"}
		tr := newRunner(t, testAlloc(structs.JobTypeService, task, nil), drv, nil, t.TempDir())
		go tr.Run()
		synctest.Wait()
		if s := tr.State(); s.State != structs.TaskStateRunning {
			t.Fatalf("state = %s", s.State)
		}
		start := time.Now()
		tr.Kill()
		<-tr.WaitCh()
		if el := time.Since(start); el != 8*time.Second {
			t.Fatalf("kill took %v, want timeout 3s + grace 5s", el)
		}
		s := tr.State()
		if s.State != structs.TaskStateDead || s.Failed {
			t.Fatalf("state = %s failed=%v", s.State, s.Failed)
		}
		if got, want := eventTypes(s), "Received,Task Setup,Started,Killing,Killed"; got != want {
			t.Fatalf("events = %s, want %s", got, want)
		}
		calls := strings.Join(drv.Calls(), "\n")
		if !strings.Contains(calls, "stop a1/t/") || !strings.Contains(calls, " 3s SIGINT") {
			t.Fatalf("calls:\n%s", calls)
		}
		if len(drv.Running()) != 0 {
			t.Fatalf("still running: %v", drv.Running())
		}
	})
}

func TestKillPromptWhenTaskObeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		drv := clienttest.NewFakeDriver()
		task := &structs.Task{Name: "t", Driver: "mock", KillTimeout: 3 * time.Second}
		tr := newRunner(t, testAlloc(structs.JobTypeService, task, nil), drv, nil, t.TempDir())
		go tr.Run()
		synctest.Wait()
		start := time.Now()
		tr.Kill()
		<-tr.WaitCh()
		if el := time.Since(start); el != 0 {
			t.Fatalf("kill took %v", el)
		}
	})
}

func TestRestartRecoversInsteadOfStarting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		db, err := state.Open(filepath.Join(dir, "client", "state.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		drv := clienttest.NewFakeDriver()
		task := &structs.Task{Name: "t", Driver: "mock"}
		alloc := testAlloc(structs.JobTypeService, task, nil)
		tr1 := newRunner(t, alloc, drv, db, dir)
		go tr1.Run()
		synctest.Wait()
		id := tr1.Handle().Config.ID
		// The client goes away without killing the task; a new runner
		// over the same state must re-attach.
		tr2 := newRunner(t, alloc, drv, db, dir)
		if s := tr2.State(); s.State != structs.TaskStateRunning {
			t.Fatalf("restored state = %s", s.State)
		}
		go tr2.Run()
		synctest.Wait()
		if n := len(drv.Started()); n != 1 {
			t.Fatalf("StartTask called %d times, want 1", n)
		}
		calls := drv.Calls()
		if calls[len(calls)-1] != "recover "+id {
			t.Fatalf("calls = %v", calls)
		}
		drv.Exit(id, 0)
		tr2.Kill()
		<-tr2.WaitCh()
		tr1.Kill()
		<-tr1.WaitCh()
	})
}

func TestRecoverFailsStartsAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		db, err := state.Open(filepath.Join(dir, "state.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		task := &structs.Task{Name: "t", Driver: "mock"}
		alloc := testAlloc(structs.JobTypeService, task, nil)
		tr1 := newRunner(t, alloc, clienttest.NewFakeDriver(), db, dir)
		go tr1.Run()
		synctest.Wait()
		// A fresh driver knows nothing of the task (the machine rebooted).
		drv2 := clienttest.NewFakeDriver()
		tr2 := newRunner(t, alloc, drv2, db, dir)
		go tr2.Run()
		synctest.Wait()
		if n := len(drv2.Started()); n != 1 {
			t.Fatalf("started %d", n)
		}
		tr2.Kill()
		tr1.Kill()
		<-tr2.WaitCh()
		<-tr1.WaitCh()
	})
}

func TestStartErrorIsDriverFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		drv := clienttest.NewFakeDriver()
		task := &structs.Task{Name: "t", Driver: "mock", Config: map[string]any{"start_error": "no such binary"}}
		rp := &structs.RestartPolicy{Attempts: 0, Interval: time.Hour, Mode: structs.RestartPolicyModeFail}
		tr := newRunner(t, testAlloc(structs.JobTypeBatch, task, rp), drv, nil, t.TempDir())
		go tr.Run()
		<-tr.WaitCh()
		s := tr.State()
		if !s.Failed || eventTypes(s) != "Received,Task Setup,Driver Failure,Not Restarting" {
			t.Fatalf("failed=%v events=%s", s.Failed, eventTypes(s))
		}
	})
}

// crashingDriver reports the plugin dead to the first WaitTask, then
// refuses RecoverTask until the plugin is "back" (after 1s).
type crashingDriver struct {
	*clienttest.FakeDriver
	waits    int
	downTill time.Time
}

func (d *crashingDriver) WaitTask(ctx context.Context, id string) (<-chan *base.ExitResult, error) {
	d.waits++
	if d.waits == 1 {
		d.downTill = time.Now().Add(time.Second)
		ch := make(chan *base.ExitResult, 1)
		ch <- &base.ExitResult{ExitCode: -1, Err: fmt.Errorf("stream: %w", base.ErrPluginShutdown)}
		close(ch)
		return ch, nil
	}
	return d.FakeDriver.WaitTask(ctx, id)
}

func (d *crashingDriver) RecoverTask(h *base.TaskHandle) error {
	if time.Now().Before(d.downTill) {
		return fmt.Errorf("dial: %w", base.ErrPluginShutdown)
	}
	return d.FakeDriver.RecoverTask(h)
}

func TestPluginCrashReattaches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		drv := &crashingDriver{FakeDriver: clienttest.NewFakeDriver()}
		task := &structs.Task{Name: "t", Driver: "mock", Config: map[string]any{"run_for": "10s"}}
		tr := newRunner(t, testAlloc(structs.JobTypeBatch, task, nil), drv, nil, t.TempDir())
		go tr.Run()
		<-tr.WaitCh()
		s := tr.State()
		if s.State != structs.TaskStateDead || s.Failed || len(drv.Started()) != 1 {
			t.Fatalf("state %s failed=%v started=%d", s.State, s.Failed, len(drv.Started()))
		}
		if got, want := eventTypes(s), "Received,Task Setup,Started,Terminated"; got != want {
			t.Fatalf("events %s, want %s", got, want)
		}
	})
}

func TestKillWhileReattaching(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		drv := &crashingDriver{FakeDriver: clienttest.NewFakeDriver()}
		task := &structs.Task{Name: "t", Driver: "mock"}
		tr := newRunner(t, testAlloc(structs.JobTypeService, task, nil), drv, nil, t.TempDir())
		go tr.Run()
		synctest.Wait() // plugin down: the runner is waiting to re-attach
		tr.Kill()
		<-tr.WaitCh()
		s := tr.State()
		if s.State != structs.TaskStateDead || s.Failed {
			t.Fatalf("state %s failed=%v", s.State, s.Failed)
		}
		if got, want := eventTypes(s), "Received,Task Setup,Started,Killing,Killed"; got != want {
			t.Fatalf("events %s, want %s", got, want)
		}
		if len(drv.Running()) != 0 {
			t.Fatalf("task left running")
		}
	})
}
