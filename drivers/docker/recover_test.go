package docker_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers"
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/docker"
	"github.com/nomadish/nomadish/drivers/drivertest"
)

// launch runs the docker driver as a plugin subprocess of the test binary.
func launch(t *testing.T) (base.Driver, func()) {
	t.Helper()
	d, kill, err := drivers.Launch(os.Args[0], docker.Name, nil)
	if err != nil {
		t.Fatalf("launching the docker plugin: %v", err)
	}
	t.Cleanup(kill)
	if err := d.SetConfig(map[string]any{}); err != nil {
		t.Fatal(err)
	}
	return d, kill
}

// The container keeps running when its plugin dies; a new plugin
// re-attaches by container ID, resumes the logs, and reports the real exit.
func TestRecoverAfterPluginRestart(t *testing.T) {
	cfg := shTask(t, `echo before; while [ ! -e /alloc/go ]; do sleep 0.2; done; echo after; exit 7`)
	if err := os.MkdirAll(cfg.AllocDir, 0o777); err != nil {
		t.Fatal(err)
	}
	d1, kill1 := launch(t)
	h, err := d1.StartTask(cfg)
	if err != nil {
		t.Fatalf("StartTask: %v", err)
	}
	waitForLog(t, cfg.StdoutPath, "before")
	id := containerID(t, d1, cfg.ID)
	kill1()

	d2, _ := launch(t)
	if err := d2.RecoverTask(h); err != nil {
		t.Fatalf("RecoverTask: %v", err)
	}
	if got := containerID(t, d2, cfg.ID); got != id {
		t.Fatalf("recovered container %s, want %s", got, id)
	}
	if st, _ := d2.InspectTask(cfg.ID); st.State != base.TaskStateRunning {
		t.Fatalf("recovered task state %s, want running", st.State)
	}
	if err := os.WriteFile(cfg.AllocDir+"/go", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if res := drivertest.WaitExit(t, d2, cfg.ID, 20*time.Second); res.ExitCode != 7 || res.Err != nil {
		t.Fatalf("exit after recovery = %+v, want code 7", res)
	}
	if got := drivertest.ReadLog(cfg.StdoutPath); got != "before\nafter\n" {
		t.Errorf("stdout across the restart = %q, want before and after once each", got)
	}
	if err := d2.DestroyTask(cfg.ID, false); err != nil {
		t.Fatal(err)
	}
	if err := d2.RecoverTask(h); !errors.Is(err, base.ErrTaskNotFound) {
		t.Fatalf("RecoverTask of a removed container: %v, want ErrTaskNotFound", err)
	}
}

// A container that exited while no plugin watched reports its exit code.
func TestRecoverExitedContainer(t *testing.T) {
	cfg := shTask(t, `exit 5`)
	d1 := newDriver(t)
	h, err := d1.StartTask(cfg)
	if err != nil {
		t.Fatal(err)
	}
	drivertest.WaitExit(t, d1, cfg.ID, 20*time.Second)
	d2 := newDriver(t)
	if err := d2.RecoverTask(h); err != nil {
		t.Fatal(err)
	}
	if res := drivertest.WaitExit(t, d2, cfg.ID, 10*time.Second); res.ExitCode != 5 {
		t.Fatalf("recovered exit = %+v, want 5", res)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	info, err := engineClient(t).ContainerInspect(ctx, containerID(t, d2, cfg.ID))
	if err != nil || info.State.Running {
		t.Fatalf("inspect: %v running=%v", err, info.State != nil && info.State.Running)
	}
	if !strings.HasPrefix(info.Name, "/web-") {
		t.Errorf("name %q", info.Name)
	}
}
