package drivers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/drivertest"
)

func launchT(t *testing.T, name string) (base.Driver, int, func()) {
	t.Helper()
	var logs bytes.Buffer
	logger := hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Debug})
	d, c, err := launch(os.Args[0], name, logger)
	if err != nil {
		t.Fatalf("launch %s: %v", name, err)
	}
	t.Cleanup(c.Kill)
	return d, c.ReattachConfig().Pid, c.Kill
}

func shTask(t *testing.T, script string) *base.TaskConfig {
	dir := t.TempDir()
	logs := filepath.Join(dir, "alloc", "logs")
	return &base.TaskConfig{
		ID: fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano()), Name: "web", TaskDir: dir, AllocDir: dir,
		Env:        map[string]string{"PATH": os.Getenv("PATH"), "NOMAD_TASK_DIR": dir},
		Config:     map[string]any{"command": "/bin/sh", "args": []any{"-c", script}, "n": int64(3), "f": 1.5, "m": map[string]any{"k": "v"}},
		Resources:  base.Resources{CPUShares: 100, MemoryMB: 64},
		StdoutPath: filepath.Join(logs, "web.stdout"), StderrPath: filepath.Join(logs, "web.stderr"),
	}
}

func waitForLog(t *testing.T, path, s string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(drivertest.ReadLog(path), s) {
		if time.Now().After(deadline) {
			t.Fatalf("log never contained %q: %q", s, drivertest.ReadLog(path))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// raw_exec through a real plugin subprocess: disabled until SetConfig,
// then start, wait, logs, inspect, errors.Is across the wire.
func TestPluginRawExecRoundTrip(t *testing.T) {
	d, _, _ := launchT(t, "raw_exec")
	ctx := context.Background()
	fp, err := d.Fingerprint(ctx)
	if err != nil || fp.Health != base.HealthUndetected {
		t.Fatalf("fingerprint before enable = %+v, %v", fp, err)
	}
	if _, err := d.StartTask(shTask(t, "true")); !errors.Is(err, base.ErrDisabled) {
		t.Fatalf("start while disabled: %v", err)
	}
	if err := d.SetConfig(map[string]any{"bogus": 1}); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Fatalf("bad config: %v", err)
	}
	if err := d.SetConfig(map[string]any{"enabled": true}); err != nil {
		t.Fatal(err)
	}
	fp, err = d.Fingerprint(ctx)
	if err != nil || fp.Health != base.HealthHealthy || fp.Attributes["driver.raw_exec"] != "1" {
		t.Fatalf("fingerprint = %+v, %v", fp, err)
	}
	caps, err := d.Capabilities()
	if err != nil || !caps.SendSignals {
		t.Fatalf("caps = %+v, %v", caps, err)
	}

	cfg := shTask(t, `echo "out $NOMAD_TASK_DIR"; echo err >&2; exit 7`)
	h, err := d.StartTask(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if h.Config.ID != cfg.ID || h.Config.Config["n"] != int64(3) || h.Config.Config["f"] != 1.5 ||
		h.Config.Config["m"].(map[string]any)["k"] != "v" || h.Config.Resources.MemoryMB != 64 || len(h.DriverState) == 0 {
		t.Fatalf("handle did not round-trip: %+v config %#v", h, h.Config.Config)
	}
	res := drivertest.WaitExit(t, d, cfg.ID, 10*time.Second)
	if res.ExitCode != 7 || res.Err != nil {
		t.Fatalf("result = %+v", res)
	}
	if got := drivertest.ReadLog(cfg.StdoutPath); got != "out "+cfg.TaskDir+"\n" {
		t.Errorf("stdout = %q", got)
	}
	if got := drivertest.ReadLog(cfg.StderrPath); got != "err\n" {
		t.Errorf("stderr = %q", got)
	}
	st, err := d.InspectTask(cfg.ID)
	if err != nil || st.State != base.TaskStateExited || st.ExitResult.ExitCode != 7 || st.StartedAt.IsZero() {
		t.Fatalf("inspect = %+v, %v", st, err)
	}
	if err := d.DestroyTask(cfg.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := d.InspectTask(cfg.ID); !errors.Is(err, base.ErrTaskNotFound) {
		t.Fatalf("inspect destroyed: %v", err)
	}
	if _, err := d.WaitTask(ctx, "nope"); !errors.Is(err, base.ErrTaskNotFound) {
		t.Fatalf("wait unknown: %v", err)
	}
	if _, err := d.TaskStats(ctx, "nope", time.Second); !errors.Is(err, base.ErrTaskNotFound) {
		t.Fatalf("stats unknown: %v", err)
	}
}

// Stop escalation, signals and stats over the wire.
func TestPluginStopSignalStats(t *testing.T) {
	d, _, _ := launchT(t, "raw_exec")
	if err := d.SetConfig(map[string]any{"enabled": true}); err != nil {
		t.Fatal(err)
	}
	cfg := shTask(t, `trap "echo hup" HUP; trap "" TERM; echo ready; while :; do sleep 0.05; done`)
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	waitForLog(t, cfg.StdoutPath, "ready")
	if err := d.SignalTask(cfg.ID, "HUP"); err != nil {
		t.Fatal(err)
	}
	waitForLog(t, cfg.StdoutPath, "hup")
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := d.TaskStats(ctx, cfg.ID, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if u := <-ch; u == nil || u.Pids < 1 || u.Memory.RSS == 0 || u.Timestamp.IsZero() {
		t.Fatalf("usage = %+v", u)
	}
	cancel()
	if err := d.StopTask(cfg.ID, 200*time.Millisecond, "SIGTERM"); err != nil {
		t.Fatal(err)
	}
	if res := drivertest.WaitExit(t, d, cfg.ID, time.Second); res.Signal != int(syscall.SIGKILL) {
		t.Fatalf("result = %+v, want SIGKILL after the timeout", res)
	}
	for range ch { // closed after the task exits
	}
}

// Killing the plugin process turns a pending WaitTask and later calls into
// ErrPluginShutdown errors, not hangs.
func TestPluginDeathGivesErrors(t *testing.T) {
	d, pid, _ := launchT(t, "mock_driver")
	if _, err := d.StartTask(&base.TaskConfig{ID: "long", Config: map[string]any{"run_for": "1h"}}); err != nil {
		t.Fatal(err)
	}
	ch, err := d.WaitTask(context.Background(), "long")
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-ch:
		if res == nil || !errors.Is(res.Err, base.ErrPluginShutdown) {
			t.Fatalf("wait result = %+v, want ErrPluginShutdown", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("WaitTask hung after the plugin died")
	}
	done := make(chan error, 1)
	go func() { _, err := d.InspectTask("long"); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, base.ErrPluginShutdown) {
			t.Fatalf("inspect after death: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("InspectTask hung after the plugin died")
	}
}

// A client restart: the first plugin dies, a new one recovers the task by
// its handle, keeps capturing its logs and reports its exit.
func TestPluginRecoverAfterPluginDeath(t *testing.T) {
	d1, pid1, _ := launchT(t, "raw_exec")
	d1.SetConfig(map[string]any{"enabled": true})
	cfg := shTask(t, `echo one; while [ ! -e go ]; do sleep 0.02; done; echo two`)
	h, err := d1.StartTask(cfg)
	if err != nil {
		t.Fatal(err)
	}
	waitForLog(t, cfg.StdoutPath, "one")
	syscall.Kill(pid1, syscall.SIGKILL)

	d2, _, _ := launchT(t, "raw_exec")
	d2.SetConfig(map[string]any{"enabled": true})
	if err := d2.RecoverTask(h); err != nil {
		t.Fatal(err)
	}
	if st, err := d2.InspectTask(cfg.ID); err != nil || st.State != base.TaskStateRunning {
		t.Fatalf("recovered inspect = %+v, %v", st, err)
	}
	os.WriteFile(filepath.Join(cfg.TaskDir, "go"), nil, 0o644)
	res := drivertest.WaitExit(t, d2, cfg.ID, 10*time.Second)
	if !errors.Is(res.Err, base.ErrExitCodeUnknown) {
		t.Fatalf("result = %+v, want ErrExitCodeUnknown", res)
	}
	if got := drivertest.ReadLog(cfg.StdoutPath); got != "one\ntwo\n" {
		t.Errorf("stdout across plugin restart = %q", got)
	}
	if err := d2.DestroyTask(cfg.ID, false); err != nil {
		t.Fatal(err)
	}
}

func TestServeRefusesToRunByHand(t *testing.T) {
	t.Setenv(Handshake.MagicCookieKey, "")
	if err := Serve(testCatalog, "raw_exec"); !errors.Is(err, ErrNotPlugin) {
		t.Fatalf("Serve without cookie: %v", err)
	}
}

func TestLaunchUnknownDriver(t *testing.T) {
	start := time.Now()
	if _, _, err := Launch(os.Args[0], "nope", nil); err == nil {
		t.Fatal("want error launching an unknown driver")
	}
	if time.Since(start) > 10*time.Second {
		t.Fatal("Launch of a failing plugin took too long")
	}
	if _, err := testCatalog.New("nope", nil); err == nil {
		t.Fatal("New unknown: want error")
	}
	if d, err := testCatalog.New("mock", nil); err != nil || d == nil {
		t.Fatalf("New mock: %v", err)
	}
}

// Cancelling the WaitTask context closes the channel without a result and
// leaves the task running.
func TestPluginWaitCancel(t *testing.T) {
	d, _, _ := launchT(t, "mock")
	if _, err := d.StartTask(&base.TaskConfig{ID: "w", Config: map[string]any{"run_for": "1h"}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := d.WaitTask(ctx, "w")
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if res, ok := <-ch; ok {
		t.Fatalf("got result %+v after cancel", res)
	}
	if st, err := d.InspectTask("w"); err != nil || st.State != base.TaskStateRunning {
		t.Fatalf("inspect = %+v, %v", st, err)
	}
	if err := d.StopTask("w", time.Second, "SIGTERM"); err != nil {
		t.Fatal(err)
	}
	if err := d.DestroyTask("w", false); err != nil {
		t.Fatal(err)
	}
}
