package execdriver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/drivertest"
)

func newDriver(t *testing.T) *Driver {
	t.Helper()
	return New(Options{Name: "raw_exec", EnabledByDefault: true})
}

// shTask returns a task config running script under /bin/sh.
func shTask(t *testing.T, script string) *base.TaskConfig {
	t.Helper()
	dir := t.TempDir()
	logs := filepath.Join(dir, "alloc", "logs")
	return &base.TaskConfig{
		ID: fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano()), Name: "web", AllocID: "a1",
		Env:      map[string]string{"PATH": os.Getenv("PATH"), "GREETING": "hi"},
		Config:   map[string]any{"command": "/bin/sh", "args": []any{"-c", script}},
		AllocDir: dir, TaskDir: dir,
		StdoutPath: filepath.Join(logs, "web.stdout"), StderrPath: filepath.Join(logs, "web.stderr"),
	}
}

// waitForLog polls a real process's log until it contains s.
func waitForLog(t *testing.T, path, s string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(drivertest.ReadLog(path), s) {
		if time.Now().After(deadline) {
			t.Fatalf("log %s never contained %q; has %q", path, s, drivertest.ReadLog(path))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStartWaitExitCodeAndLogs(t *testing.T) {
	d := newDriver(t)
	cfg := shTask(t, `echo "$GREETING from $(pwd)"; echo oops >&2; exit 3`)
	h, err := d.StartTask(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if h.State != base.TaskStateRunning || len(h.DriverState) == 0 || h.Config != cfg {
		t.Fatalf("bad handle %+v", h)
	}
	res := drivertest.WaitExit(t, d, cfg.ID, 10*time.Second)
	if res.ExitCode != 3 || res.Signal != 0 || res.Err != nil || res.Successful() {
		t.Fatalf("result = %+v, want exit 3", res)
	}
	// Logs are complete as soon as the exit is reported: no polling.
	if got, want := drivertest.ReadLog(cfg.StdoutPath), "hi from "+cfg.TaskDir+"\n"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
	if got := drivertest.ReadLog(cfg.StderrPath); got != "oops\n" {
		t.Errorf("stderr = %q", got)
	}
	st, err := d.InspectTask(cfg.ID)
	if err != nil || st.State != base.TaskStateExited || st.ExitResult.ExitCode != 3 || st.CompletedAt.IsZero() {
		t.Fatalf("inspect = %+v, %v", st, err)
	}
	if err := d.DestroyTask(cfg.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := d.InspectTask(cfg.ID); !errors.Is(err, base.ErrTaskNotFound) {
		t.Fatalf("after destroy: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(cfg.StdoutPath), ".web.stdout.fifo")); !os.IsNotExist(err) {
		t.Errorf("fifo not removed: %v", err)
	}
}

func TestStartErrors(t *testing.T) {
	d := newDriver(t)
	cfg := shTask(t, "sleep 30")
	cfg.Config = map[string]any{"args": []any{"x"}}
	if _, err := d.StartTask(cfg); err == nil || !strings.Contains(err.Error(), "command") {
		t.Errorf("missing command: %v", err)
	}
	cfg.Config = map[string]any{"command": "/nonexistent/bin"}
	if _, err := d.StartTask(cfg); err == nil {
		t.Error("want error starting a missing binary")
	}
	cfg = shTask(t, "sleep 30")
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	defer d.DestroyTask(cfg.ID, true)
	if _, err := d.StartTask(cfg); !errors.Is(err, base.ErrTaskExists) {
		t.Errorf("duplicate start: %v", err)
	}
	if err := d.DestroyTask(cfg.ID, false); !errors.Is(err, base.ErrTaskRunning) {
		t.Errorf("destroy running without force: %v", err)
	}
	dis := New(Options{Name: "raw_exec"})
	if _, err := dis.StartTask(shTask(t, "true")); !errors.Is(err, base.ErrDisabled) {
		t.Errorf("disabled driver: %v", err)
	}
}

// A task that ignores SIGTERM is SIGKILLed after the timeout, together with
// its children (the whole process group).
func TestStopEscalatesToSIGKILL(t *testing.T) {
	d := newDriver(t)
	cfg := shTask(t, `trap "echo got-term" TERM; sleep 60 & echo $! > child.pid; echo ready; while :; do wait; done`)
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	waitForLog(t, cfg.StdoutPath, "ready")
	b, err := os.ReadFile(filepath.Join(cfg.TaskDir, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	var child int
	fmt.Sscan(string(b), &child)

	start := time.Now()
	if err := d.StopTask(cfg.ID, 300*time.Millisecond, "SIGTERM"); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 300*time.Millisecond || el > 5*time.Second {
		t.Errorf("stop took %v, want about the 300ms timeout", el)
	}
	res := drivertest.WaitExit(t, d, cfg.ID, time.Second)
	if res.Signal != int(syscall.SIGKILL) {
		t.Fatalf("result = %+v, want killed by SIGKILL", res)
	}
	if !strings.Contains(drivertest.ReadLog(cfg.StdoutPath), "got-term") {
		t.Errorf("task never saw SIGTERM: %q", drivertest.ReadLog(cfg.StdoutPath))
	}
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(child, 0) == nil {
		if st, err := readProcStat(child); err == nil && st.State == 'Z' {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("child %d of the task survived the group kill", child)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := d.DestroyTask(cfg.ID, false); err != nil {
		t.Fatal(err)
	}
}

func TestStopWithSignalTheTaskHandles(t *testing.T) {
	d := newDriver(t)
	cfg := shTask(t, `trap "echo bye; exit 0" INT; echo ready; while :; do sleep 0.05; done`)
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	waitForLog(t, cfg.StdoutPath, "ready")
	if err := d.StopTask(cfg.ID, 10*time.Second, "INT"); err != nil {
		t.Fatal(err)
	}
	res := drivertest.WaitExit(t, d, cfg.ID, time.Second)
	if !res.Successful() {
		t.Fatalf("result = %+v, want clean exit", res)
	}
	if got := drivertest.ReadLog(cfg.StdoutPath); got != "ready\nbye\n" {
		t.Errorf("stdout = %q", got)
	}
	if err := d.StopTask(cfg.ID, time.Second, "BOGUS"); err == nil {
		t.Error("want error for unknown signal")
	}
	d.DestroyTask(cfg.ID, true)
}

// Output larger than a file is split over rotated files with nothing lost,
// and complete when the exit is reported, even while a background child
// still holds stdout open.
func TestLogsRotatedAndComplete(t *testing.T) {
	d := newDriver(t)
	cfg := shTask(t, `seq 1 400000; sleep 30 & exit 0`)
	cfg.LogMaxFileSizeMB = 1
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	defer d.DestroyTask(cfg.ID, true)
	res := drivertest.WaitExit(t, d, cfg.ID, 20*time.Second)
	if !res.Successful() {
		t.Fatalf("result %+v", res)
	}
	var want strings.Builder
	for i := 1; i <= 400000; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	got := drivertest.ReadLog(cfg.StdoutPath)
	if got != want.String() {
		t.Fatalf("stdout has %d bytes, want %d", len(got), want.Len())
	}
	for i := 0; i < 2; i++ { // 2.7 MB: .0 and .1 full, .2 partial
		st, err := os.Stat(fmt.Sprintf("%s.%d", cfg.StdoutPath, i))
		if err != nil || st.Size() != 1<<20 {
			t.Fatalf("file %d: %v size %d, want a full 1 MiB file", i, err, st.Size())
		}
	}
}

func TestSignalAndStats(t *testing.T) {
	d := newDriver(t)
	cfg := shTask(t, `trap "echo hup" HUP; echo ready; while :; do sleep 0.05; done`)
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	defer d.DestroyTask(cfg.ID, true)
	waitForLog(t, cfg.StdoutPath, "ready")
	if err := d.SignalTask(cfg.ID, "SIGHUP"); err != nil {
		t.Fatal(err)
	}
	waitForLog(t, cfg.StdoutPath, "hup")

	ctx, cancel := context.WithCancel(context.Background())
	ch, err := d.TaskStats(ctx, cfg.ID, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	u := <-ch
	if u == nil || u.Pids < 1 || u.Memory.RSS == 0 {
		t.Fatalf("usage = %+v", u)
	}
	cancel()
	for range ch {
	}
	if _, err := d.TaskStats(context.Background(), "nope", time.Second); !errors.Is(err, base.ErrTaskNotFound) {
		t.Errorf("stats of unknown task: %v", err)
	}
}

// A second driver (a restarted plugin) recovers the task by pid: it sees
// the exit by polling and keeps capturing logs through the FIFO.
func TestRecoverTask(t *testing.T) {
	a := newDriver(t)
	cfg := shTask(t, `echo one; while [ ! -e go ]; do sleep 0.02; done; echo two`)
	h, err := a.StartTask(cfg)
	if err != nil {
		t.Fatal(err)
	}
	waitForLog(t, cfg.StdoutPath, "one")
	ta, _ := a.tasks.Get(cfg.ID)
	ta.closePumps() // the old plugin stops reading, as if it died

	b := newDriver(t)
	if err := b.RecoverTask(h); err != nil {
		t.Fatal(err)
	}
	if err := b.RecoverTask(h); err != nil { // idempotent
		t.Fatal(err)
	}
	if st, err := b.InspectTask(cfg.ID); err != nil || st.State != base.TaskStateRunning {
		t.Fatalf("inspect recovered = %+v, %v", st, err)
	}
	os.WriteFile(filepath.Join(cfg.TaskDir, "go"), nil, 0o644)
	res := drivertest.WaitExit(t, b, cfg.ID, 10*time.Second)
	if !errors.Is(res.Err, base.ErrExitCodeUnknown) {
		t.Fatalf("recovered result = %+v, want ErrExitCodeUnknown", res)
	}
	if got := drivertest.ReadLog(cfg.StdoutPath); got != "one\ntwo\n" {
		t.Errorf("stdout across recovery = %q", got)
	}
	if err := b.DestroyTask(cfg.ID, false); err != nil {
		t.Fatal(err)
	}
	// A handle whose process is gone recovers as exited at once.
	c := newDriver(t)
	if err := c.RecoverTask(h); err != nil {
		t.Fatal(err)
	}
	if res := drivertest.WaitExit(t, c, cfg.ID, 5*time.Second); !errors.Is(res.Err, base.ErrExitCodeUnknown) {
		t.Fatalf("gone task result = %+v", res)
	}
	if err := c.RecoverTask(&base.TaskHandle{Config: &base.TaskConfig{ID: "x"}, DriverState: []byte("{")}); err == nil {
		t.Error("want error for bad driver state")
	}
}

func TestSetConfig(t *testing.T) {
	d := New(Options{Name: "raw_exec", ConfigKeys: []string{"no_cgroups"}})
	if err := d.SetConfig(map[string]any{"enabled": "yes"}); err == nil {
		t.Error("want error for non-bool enabled")
	}
	if err := d.SetConfig(map[string]any{"enabld": true}); err == nil || !strings.Contains(err.Error(), `"enabld"`) {
		t.Errorf("unknown key error = %v", err)
	}
	if err := d.SetConfig(map[string]any{"enabled": true, "no_cgroups": true}); err != nil {
		t.Fatal(err)
	}
	fp, err := d.Fingerprint(context.Background())
	if err != nil || fp.Health != base.HealthHealthy || fp.Attributes["driver.raw_exec"] != "1" {
		t.Fatalf("fingerprint = %+v, %v", fp, err)
	}
}
