package template_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/client/template"
	"github.com/nomadish/nomadish/client/template/templatetest"
	"github.com/nomadish/nomadish/structs"
)

// fakeTask records what a Manager does to its task.
type fakeTask struct {
	mu       sync.Mutex
	calls    []string
	events   []*structs.TaskEvent
	execCode int
}

func (f *fakeTask) add(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}
func (f *fakeTask) Restart(context.Context) error { f.add("restart"); return nil }
func (f *fakeTask) Signal(sig string) error       { f.add("signal " + sig); return nil }
func (f *fakeTask) Exec(_ context.Context, cmd []string) (int, error) {
	f.add("exec " + strings.Join(cmd, " "))
	return f.execCode, nil
}
func (f *fakeTask) Kill(ev *structs.TaskEvent) { f.add("kill"); f.Event(ev) }
func (f *fakeTask) Event(ev *structs.TaskEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, ev)
}
func (f *fakeTask) Calls() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.calls, ",")
}
func (f *fakeTask) Messages() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, e := range f.events {
		out = append(out, e.DisplayMessage)
	}
	return strings.Join(out, "|")
}

type fixture struct {
	dirs template.Dirs
	vars *templatetest.Vars
	task *fakeTask
	env  map[string]string
	mu   sync.Mutex
}

func (fx *fixture) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fx.dirs.TaskDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func newFixture(t *testing.T, tmpls ...*structs.Template) (*fixture, *template.Manager) {
	root := t.TempDir()
	fx := &fixture{dirs: template.Dirs{TaskDir: filepath.Join(root, "web"), AllocDir: filepath.Join(root, "alloc")},
		vars: templatetest.NewVars(), task: &fakeTask{}}
	mkdirs(t, fx.dirs)
	for _, tm := range tmpls {
		tm.Canonicalize()
		if err := tm.Validate(); err != nil {
			t.Fatal(err)
		}
	}
	m := template.New(template.Config{Templates: tmpls, Dirs: fx.dirs, Vars: fx.vars, Task: fx.task,
		Env: func() map[string]string {
			return map[string]string{"NOMAD_TASK_DIR": filepath.Join(fx.dirs.TaskDir, "local")}
		},
		Interpolate: func(s string, env map[string]string) string {
			return strings.ReplaceAll(s, "${NOMAD_TASK_DIR}", env["NOMAD_TASK_DIR"])
		},
		SetEnv: func(e map[string]string) { fx.mu.Lock(); fx.env = e; fx.mu.Unlock() },
		Splay:  func(max time.Duration) time.Duration { return max / 2 }, Namespace: "default", Region: "global"})
	return fx, m
}

// TestPrestartBlocksUntilVariableExists: a nomadVar on a missing path
// holds the first render (event "Missing: ...") until the variable is put.
func TestPrestartBlocksUntilVariableExists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fx, m := newFixture(t, &structs.Template{DestPath: "${NOMAD_TASK_DIR}/app.conf",
			EmbeddedTmpl: `pw={{ with nomadVar "nomad/jobs/web" }}{{ .password }}{{ end }}`})
		done := make(chan error, 1)
		go func() { done <- m.Prestart(t.Context()) }()
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("prestart returned before the variable existed: %v", err)
		default:
		}
		if got := fx.task.Messages(); got != "Missing: nomadVar.block(nomad/jobs/web@default.global)" {
			t.Fatalf("events = %q", got)
		}
		fx.vars.Put("nomad/jobs/web", map[string]string{"password": "p1"})
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if got := fx.read(t, "local/app.conf"); got != "pw=p1" {
			t.Fatalf("rendered %q", got)
		}
		m.Stop()
	})
}

// TestPrestartCanceled: a kill while waiting for a variable ends Prestart.
func TestPrestartCanceled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, m := newFixture(t, &structs.Template{DestPath: "local/x", EmbeddedTmpl: `{{ nomadVar "nope" }}`})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- m.Prestart(ctx) }()
		synctest.Wait()
		cancel()
		if err := <-done; err != context.Canceled {
			t.Fatalf("prestart: %v", err)
		}
	})
}

// TestWatchChangeModes: a variable change re-renders each template reading
// it and applies its change mode once; unchanged files do nothing.
func TestWatchChangeModes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tmpl  structs.Template
		calls string
		msg   string
	}{
		{"restart", structs.Template{}, "restart", "Template with change_mode restart re-rendered"},
		{"signal", structs.Template{ChangeMode: "signal", ChangeSignal: "SIGHUP"}, "signal SIGHUP", "Template re-rendered"},
		{"noop", structs.Template{ChangeMode: "noop"}, "", ""},
		{"script", structs.Template{ChangeMode: "script", ChangeScript: &structs.ChangeScript{Command: "/bin/reload", Args: []string{"-v"}}},
			"exec /bin/reload -v", "Template ran script /bin/reload with arguments [-v] on change"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tm := tc.tmpl
				tm.DestPath, tm.EmbeddedTmpl = "local/app.conf", `{{ with nomadVar "nomad/jobs/web" }}{{ .v }}{{ end }}`
				tm.Splay = 4 * time.Second
				fx, m := newFixture(t, &tm)
				fx.vars.Put("nomad/jobs/web", map[string]string{"v": "1"})
				if err := m.Prestart(t.Context()); err != nil {
					t.Fatal(err)
				}
				m.Watch()
				synctest.Wait()
				fx.vars.Put("nomad/jobs/other", map[string]string{"v": "x"}) // not read: nothing happens
				synctest.Wait()
				if fx.task.Calls() != "" {
					t.Fatalf("calls after an unrelated change: %s", fx.task.Calls())
				}
				start := time.Now()
				fx.vars.Put("nomad/jobs/web", map[string]string{"v": "2"})
				synctest.Wait()
				if got := fx.read(t, "local/app.conf"); got != "2" {
					t.Fatalf("rendered %q", got)
				}
				time.Sleep(2 * time.Second) // the splay (half of 4s in this fixture)
				synctest.Wait()
				if got := fx.task.Calls(); got != tc.calls {
					t.Fatalf("calls = %q, want %q", got, tc.calls)
				}
				if got := fx.task.Messages(); got != tc.msg {
					t.Fatalf("events = %q, want %q", got, tc.msg)
				}
				if tc.calls != "" && time.Since(start) != 2*time.Second {
					t.Fatalf("change mode after %v, want the 2s splay", time.Since(start))
				}
				m.Stop()
			})
		})
	}
}

// TestWatchWaitCoalesces: with wait { min max } a burst of changes gives
// one re-render, at most max after the first.
func TestWatchWaitCoalesces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lo, hi := 2*time.Second, 5*time.Second
		tm := &structs.Template{DestPath: "local/a", ChangeMode: "signal", ChangeSignal: "SIGHUP", Perms: "0644",
			EmbeddedTmpl: `{{ with nomadVar "v" }}{{ .n }}{{ end }}`, Wait: &structs.WaitConfig{Min: &lo, Max: &hi}}
		fx, m := newFixtureNoCanon(t, tm)
		fx.vars.Put("v", map[string]string{"n": "0"})
		if err := m.Prestart(t.Context()); err != nil {
			t.Fatal(err)
		}
		m.Watch()
		start := time.Now()
		for i := 1; i <= 4; i++ { // a change every second: quiet never reaches min
			fx.vars.Put("v", map[string]string{"n": string(rune('0' + i))})
			time.Sleep(time.Second)
			synctest.Wait()
		}
		if fx.task.Calls() != "" {
			t.Fatalf("signalled during the burst: %s", fx.task.Calls())
		}
		time.Sleep(time.Second) // max (5s) after the first change
		synctest.Wait()
		if got := fx.task.Calls(); got != "signal SIGHUP" || time.Since(start) != 5*time.Second {
			t.Fatalf("calls = %q after %v", got, time.Since(start))
		}
		if got := fx.read(t, "local/a"); got != "4" {
			t.Fatalf("rendered %q", got)
		}
		m.Stop()
	})
}

func mkdirs(t *testing.T, d template.Dirs) {
	for _, p := range []string{filepath.Join(d.TaskDir, "local"), filepath.Join(d.TaskDir, "secrets"), d.AllocDir} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// newFixtureNoCanon builds a manager over tm as given (no splay).
func newFixtureNoCanon(t *testing.T, tm *structs.Template) (*fixture, *template.Manager) {
	root := t.TempDir()
	fx := &fixture{dirs: template.Dirs{TaskDir: filepath.Join(root, "web"), AllocDir: filepath.Join(root, "alloc")},
		vars: templatetest.NewVars(), task: &fakeTask{}}
	mkdirs(t, fx.dirs)
	m := template.New(template.Config{Templates: []*structs.Template{tm}, Dirs: fx.dirs, Vars: fx.vars, Task: fx.task,
		Splay: func(time.Duration) time.Duration { return 0 }})
	return fx, m
}

// TestEnvTemplate: env = true feeds SetEnv, again after a change.
func TestEnvTemplate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fx, m := newFixture(t, &structs.Template{DestPath: "secrets/app.env", Envvars: true,
			EmbeddedTmpl: "DB_PASS={{ with nomadVar \"nomad/jobs/web\" }}{{ .pw }}{{ end }}\nSTATIC=1\n"})
		fx.vars.Put("nomad/jobs/web", map[string]string{"pw": "a"})
		if err := m.Prestart(t.Context()); err != nil {
			t.Fatal(err)
		}
		if fx.env["DB_PASS"] != "a" || fx.env["STATIC"] != "1" {
			t.Fatalf("env = %v", fx.env)
		}
		m.Watch()
		fx.vars.Put("nomad/jobs/web", map[string]string{"pw": "b"})
		time.Sleep(3 * time.Second)
		synctest.Wait()
		fx.mu.Lock()
		defer fx.mu.Unlock()
		if fx.env["DB_PASS"] != "b" || fx.task.Calls() != "restart" {
			t.Fatalf("env = %v, calls %q", fx.env, fx.task.Calls())
		}
		m.Stop()
	})
}

// TestScriptFailOnErrorKills: a failing change script with fail_on_error
// kills the task with a failing event; without it only an event.
func TestScriptFailOnErrorKills(t *testing.T) {
	for _, failOnError := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			fx, m := newFixture(t, &structs.Template{DestPath: "local/a", ChangeMode: "script",
				ChangeScript: &structs.ChangeScript{Command: "false", FailOnError: failOnError},
				EmbeddedTmpl: `{{ with nomadVar "v" }}{{ .n }}{{ end }}`})
			fx.task.execCode = 1
			fx.vars.Put("v", map[string]string{"n": "1"})
			if err := m.Prestart(t.Context()); err != nil {
				t.Fatal(err)
			}
			m.Watch()
			fx.vars.Put("v", map[string]string{"n": "2"})
			time.Sleep(3 * time.Second)
			synctest.Wait()
			want := "exec false"
			if failOnError {
				want += ",kill"
			}
			if got := fx.task.Calls(); got != want {
				t.Fatalf("calls = %q, want %q", got, want)
			}
			if !strings.Contains(fx.task.Messages(), "Template failed to run script false with arguments [] on change: exit code 1") {
				t.Fatalf("events = %q", fx.task.Messages())
			}
			m.Stop()
		})
	}
}

// TestRenderErrorKillsOnRerender: a template that stops rendering after a
// change (error_on_missing_key) kills the task: "Template failed: ...".
func TestRenderErrorKillsOnRerender(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fx, m := newFixture(t, &structs.Template{DestPath: "local/a", ErrMissingKey: true,
			EmbeddedTmpl: `{{ with nomadVar "v" }}{{ .n }}{{ end }}`})
		fx.vars.Put("v", map[string]string{"n": "1"})
		if err := m.Prestart(t.Context()); err != nil {
			t.Fatal(err)
		}
		m.Watch()
		fx.vars.Put("v", map[string]string{"other": "2"})
		synctest.Wait()
		if fx.task.Calls() != "kill" || !strings.HasPrefix(fx.task.Messages(), "Template failed: rendering template \"local/a\"") {
			t.Fatalf("calls %q events %q", fx.task.Calls(), fx.task.Messages())
		}
		m.Stop()
	})
}

// TestDestinationEscapeRefused: an interpolated destination outside the
// task's directories fails Prestart and writes nothing.
func TestDestinationEscapeRefused(t *testing.T) {
	fx, m := newFixture(t, &structs.Template{DestPath: "${NOMAD_TASK_DIR}/../../../x", EmbeddedTmpl: "x"})
	err := m.Prestart(t.Context())
	if err == nil || !strings.Contains(err.Error(), "escapes") {
		t.Fatalf("prestart: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(fx.dirs.TaskDir), "..", "x")); !os.IsNotExist(err) {
		t.Fatalf("wrote outside: %v", err)
	}
	m.Stop()
}

// TestStopEndsEveryGoroutine: Stop ends the watcher and its per-variable
// goroutines. synctest.Test fails the test if any goroutine started in the
// bubble is still blocked when it returns, so a leak cannot pass.
func TestStopEndsEveryGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fx, m := newFixture(t, &structs.Template{DestPath: "local/a",
			EmbeddedTmpl: `{{ nomadVar "a" }}{{ nomadVarExists "b" }}{{ range nomadVarList "p" }}{{ end }}`})
		fx.vars.Put("a", map[string]string{"k": "v"})
		if err := m.Prestart(t.Context()); err != nil {
			t.Fatal(err)
		}
		m.Watch()
		m.Watch() // once
		synctest.Wait()
		m.Stop()
		m.Stop() // idempotent
	})
}

// TestWatchDeletedVariableKeepsFile: a variable deleted while the task
// runs keeps the last rendering (event "Missing: ..."), and its return
// re-renders and applies the change mode.
func TestWatchDeletedVariableKeepsFile(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fx, m := newFixture(t, &structs.Template{DestPath: "local/a", ChangeMode: "signal", ChangeSignal: "SIGHUP", Splay: time.Nanosecond,
			EmbeddedTmpl: `{{ with nomadVar "nomad/jobs/web" }}{{ .v }}{{ end }}`})
		fx.vars.Put("nomad/jobs/web", map[string]string{"v": "1"})
		if err := m.Prestart(t.Context()); err != nil {
			t.Fatal(err)
		}
		m.Watch()
		fx.vars.Delete("nomad/jobs/web")
		synctest.Wait()
		if got := fx.read(t, "local/a"); got != "1" || fx.task.Calls() != "" {
			t.Fatalf("after delete: file %q calls %q", got, fx.task.Calls())
		}
		if got := fx.task.Messages(); got != "Missing: nomadVar.block(nomad/jobs/web@default.global)" {
			t.Fatalf("events %q", got)
		}
		fx.vars.Put("nomad/jobs/web", map[string]string{"v": "3"})
		time.Sleep(time.Second)
		synctest.Wait()
		if got := fx.read(t, "local/a"); got != "3" || fx.task.Calls() != "signal SIGHUP" {
			t.Fatalf("after put: file %q calls %q", got, fx.task.Calls())
		}
		m.Stop()
	})
}
