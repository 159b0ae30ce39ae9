package taskrunner_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/client/state"
	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/client/template/templatetest"
	"github.com/nomadish/nomadish/structs"
)

// templateRunner runs a service task with the given templates over a fake
// variable store; it returns the runner, the driver, the store and the
// task's directory.
func templateRunner(t *testing.T, vars *templatetest.Vars, tmpls ...*structs.Template) (*taskrunner.TaskRunner, *clienttest.FakeDriver, string) {
	t.Helper()
	drv := clienttest.NewFakeDriver()
	task := &structs.Task{Name: "web", Driver: "mock", Env: map[string]string{"GREETING": "hello"}, Templates: tmpls}
	alloc := testAlloc(structs.JobTypeService, task, nil)
	root := t.TempDir()
	tr := newRunnerWith(t, alloc, drv, func(c *taskrunner.Config) { c.Vars = vars }, root)
	return tr, drv, filepath.Join(root, alloc.ID, "web")
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTemplateRenderedBeforeStart: data with env and a variable, and an
// env template, are in place when the driver starts the task; a missing
// variable holds the start with a "Missing" event.
func TestTemplateRenderedBeforeStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		vars := templatetest.NewVars()
		tr, drv, dir := templateRunner(t, vars,
			&structs.Template{DestPath: "local/app.conf", ChangeMode: "noop",
				EmbeddedTmpl: `{{ env "GREETING" }} {{ env "NOMAD_ALLOC_ID" }} {{ with nomadVar "nomad/jobs/example" }}{{ .pw }}{{ end }}`},
			&structs.Template{DestPath: "secrets/app.env", Envvars: true, EmbeddedTmpl: "APP_MODE=prod\n"})
		go tr.Run()
		synctest.Wait()
		if n := len(drv.Started()); n != 0 {
			t.Fatalf("started %d times before the variable existed", n)
		}
		if ev := eventOf(tr.State(), "Task hook message"); ev == nil || ev.DisplayMessage != "Missing: nomadVar.block(nomad/jobs/example@default.global)" {
			t.Fatalf("missing event = %+v", ev)
		}
		vars.Put("nomad/jobs/example", map[string]string{"pw": "s3cret"})
		synctest.Wait()
		started := drv.Started()
		if len(started) != 1 {
			t.Fatalf("started %d times", len(started))
		}
		if got := readFile(t, filepath.Join(dir, "local", "app.conf")); got != "hello a1 s3cret" {
			t.Fatalf("app.conf = %q", got)
		}
		if fi, _ := os.Stat(filepath.Join(dir, "local", "app.conf")); fi.Mode().Perm() != 0o644 {
			t.Fatalf("perms %v", fi.Mode())
		}
		if started[0].Env["APP_MODE"] != "prod" || started[0].Env["GREETING"] != "hello" {
			t.Fatalf("env = %v", started[0].Env)
		}
		tr.Kill()
		<-tr.WaitCh()
	})
}

// TestTemplateChangeRestartsTask: change_mode restart restarts the task in
// place with the new content, outside the restart policy.
func TestTemplateChangeRestartsTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		vars := templatetest.NewVars()
		vars.Put("nomad/jobs/example", map[string]string{"pw": "a"})
		tr, drv, dir := templateRunner(t, vars, &structs.Template{DestPath: "secrets/env", Envvars: true, Splay: time.Nanosecond,
			EmbeddedTmpl: `PW={{ with nomadVar "nomad/jobs/example" }}{{ .pw }}{{ end }}`})
		go tr.Run()
		synctest.Wait()
		vars.Put("nomad/jobs/example", map[string]string{"pw": "b"})
		time.Sleep(time.Second)
		synctest.Wait()
		started := drv.Started()
		if len(started) != 2 || started[0].Env["PW"] != "a" || started[1].Env["PW"] != "b" {
			t.Fatalf("starts: %d", len(started))
		}
		if got := readFile(t, filepath.Join(dir, "secrets", "env")); got != "PW=b" {
			t.Fatalf("env file = %q", got)
		}
		s := tr.State()
		if !hasEvent(s, structs.TaskRestartSignal, "Template with change_mode restart re-rendered") {
			t.Fatalf("events: %s", eventTypes(s))
		}
		if s.State != structs.TaskStateRunning || s.Restarts != 1 {
			t.Fatalf("state %s restarts %d", s.State, s.Restarts)
		}
		tr.Kill()
		<-tr.WaitCh()
	})
}

// TestTemplateChangeSignalsOrNot: change_mode signal sends the signal;
// noop only rewrites the file.
func TestTemplateChangeSignalsOrNot(t *testing.T) {
	for _, mode := range []string{"signal", "noop"} {
		synctest.Test(t, func(t *testing.T) {
			vars := templatetest.NewVars()
			vars.Put("nomad/jobs/example", map[string]string{"v": "1"})
			tr, drv, dir := templateRunner(t, vars, &structs.Template{DestPath: "local/a", ChangeMode: mode, ChangeSignal: "SIGHUP",
				Splay: time.Nanosecond, EmbeddedTmpl: `{{ with nomadVar "nomad/jobs/example" }}{{ .v }}{{ end }}`})
			go tr.Run()
			synctest.Wait()
			id := tr.Handle().Config.ID
			vars.Put("nomad/jobs/example", map[string]string{"v": "2"})
			time.Sleep(time.Second)
			synctest.Wait()
			if got := readFile(t, filepath.Join(dir, "local", "a")); got != "2" {
				t.Fatalf("%s: file = %q", mode, got)
			}
			signalled := slices.Contains(drv.Calls(), "signal "+id+" SIGHUP")
			if signalled != (mode == "signal") || len(drv.Started()) != 1 {
				t.Fatalf("%s: calls %v", mode, drv.Calls())
			}
			if mode == "signal" && !strings.Contains(eventTypes(tr.State()), "Task hook message,Signaling") {
				t.Fatalf("events: %s", eventTypes(tr.State()))
			}
			tr.Kill()
			<-tr.WaitCh()
		})
	}
}

// TestTemplateEscapeFailsStart: a destination interpolated outside the
// task's directories fails the start (Template failed) and writes nothing.
func TestTemplateEscapeFailsStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr, drv, dir := templateRunner(t, nil, &structs.Template{DestPath: "${NOMAD_TASK_DIR}/../../../escaped", EmbeddedTmpl: "x"})
		go tr.Run() // the default policy would retry after 15s: kill after the first failure
		synctest.Wait()
		tr.Kill()
		<-tr.WaitCh()
		if len(drv.Started()) != 0 {
			t.Fatal("task started")
		}
		ev := eventOf(tr.State(), "Task hook failed")
		if ev == nil || !strings.Contains(ev.Message, "Template failed: template destination") || !strings.Contains(ev.Message, "escapes") {
			t.Fatalf("events %s: %+v", eventTypes(tr.State()), ev)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "..", "escaped")); !os.IsNotExist(err) {
			t.Fatalf("wrote outside: %v", err)
		}
	})
}

func hasEvent(s *structs.TaskState, typ, msg string) bool {
	for _, e := range s.Events {
		if e.Type == typ && e.DisplayMessage == msg {
			return true
		}
	}
	return false
}

// TestTemplatesWatchedAfterReattach: a runner that re-attaches to a
// running task (client restart) watches its templates again: a variable
// change restarts the task through the new runner.
func TestTemplatesWatchedAfterReattach(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		db, err := state.Open(filepath.Join(dir, "client", "state.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		vars := templatetest.NewVars()
		vars.Put("nomad/jobs/example", map[string]string{"v": "1"})
		drv := clienttest.NewFakeDriver()
		task := &structs.Task{Name: "web", Driver: "mock", Templates: []*structs.Template{{DestPath: "local/a", Splay: time.Nanosecond,
			EmbeddedTmpl: `{{ with nomadVar "nomad/jobs/example" }}{{ .v }}{{ end }}`}}}
		alloc := testAlloc(structs.JobTypeService, task, nil)
		cfg := func(c *taskrunner.Config) { c.State, c.Vars = db, vars }
		tr1 := newRunnerWith(t, alloc, drv, cfg, dir)
		go tr1.Run()
		synctest.Wait()
		tr1.Detach()
		<-tr1.WaitCh()
		tr2 := newRunnerWith(t, alloc, drv, cfg, dir)
		go tr2.Run()
		synctest.Wait()
		if n := len(drv.Started()); n != 1 {
			t.Fatalf("started %d times", n)
		}
		vars.Put("nomad/jobs/example", map[string]string{"v": "2"})
		time.Sleep(time.Second)
		synctest.Wait()
		if n := len(drv.Started()); n != 2 {
			t.Fatalf("started %d times after the change, want a restart", n)
		}
		if got := readFile(t, filepath.Join(dir, alloc.ID, "web", "local", "a")); got != "2" {
			t.Fatalf("file %q", got)
		}
		tr2.Kill()
		<-tr2.WaitCh()
	})
}

// TestTemplateFailureFailsTask: a template that stops rendering after a
// change (error_on_missing_key) kills the task and marks it failed.
func TestTemplateFailureFailsTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		vars := templatetest.NewVars()
		vars.Put("nomad/jobs/example", map[string]string{"v": "1"})
		tr, _, _ := templateRunner(t, vars, &structs.Template{DestPath: "local/a", ErrMissingKey: true,
			EmbeddedTmpl: `{{ with nomadVar "nomad/jobs/example" }}{{ .v }}{{ end }}`})
		go tr.Run()
		synctest.Wait()
		vars.Put("nomad/jobs/example", map[string]string{"w": "2"})
		<-tr.WaitCh()
		s := tr.State()
		if s.State != structs.TaskStateDead || !s.Failed {
			t.Fatalf("state %s failed=%v", s.State, s.Failed)
		}
		ev := eventOf(s, "Task hook failed")
		if ev == nil || !ev.FailsTask || !strings.HasPrefix(ev.DisplayMessage, "Template failed: rendering template \"local/a\"") {
			t.Fatalf("events %s: %+v", eventTypes(s), ev)
		}
	})
}
