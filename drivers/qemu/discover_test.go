package qemu

import (
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/drivertest"
	"github.com/nomadish/nomadish/drivers/internal/handlefile"
)

// TestDiscoverVM: a driver given no handle (the client lost its state)
// finds the running VM from the handle file beside the alloc, under its
// original task ID and pid, and can stop it; the file goes with the task.
func TestDiscoverVM(t *testing.T) {
	t.Parallel()
	d1, cfg := guest(t, false)
	cfg.AllocID, cfg.ID = "a1", "a1/vm/first001"
	cfg.Env = map[string]string{"NOMAD_ALLOC_ID": "a1", "NOMAD_TASK_NAME": "vm"}
	start := time.Now()
	if _, err := d1.StartTask(cfg); err != nil {
		t.Fatalf("StartTask: %v\nstderr: %s", err, drivertest.ReadLog(cfg.StderrPath))
	}
	t.Cleanup(func() { _ = d1.DestroyTask(cfg.ID, true) })
	waitForMarker(t, cfg, start)
	t1, err := d1.tasks.Get(cfg.ID)
	if err != nil {
		t.Fatal(err)
	}
	t1.closePumps()
	pid := t1.state.Pid

	d2 := New(nil)
	fresh := *cfg
	fresh.ID = "a1/vm/second02"
	h, err := d2.DiscoverTask(&fresh)
	if err != nil {
		t.Fatalf("DiscoverTask: %v", err)
	}
	st, err := d2.InspectTask(cfg.ID)
	if h.Config.ID != cfg.ID || err != nil || st.State != base.TaskStateRunning || st.DriverAttributes["pid"] != fmt.Sprint(pid) {
		t.Fatalf("discovered %s: %+v %v; want %s with pid %d", h.Config.ID, st, err, cfg.ID, pid)
	}
	other := fresh
	other.Name = "db"
	if _, err := d2.DiscoverTask(&other); !errors.Is(err, base.ErrTaskNotFound) {
		t.Fatalf("another task: %v", err)
	}
	if err := d2.StopTask(cfg.ID, time.Second, ""); err != nil {
		t.Fatal(err)
	}
	if err := d2.DestroyTask(cfg.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(handlefile.Path(Name, cfg)); !os.IsNotExist(err) {
		t.Fatalf("handle file left: %v", err)
	}
	if _, err := New(nil).DiscoverTask(&fresh); !errors.Is(err, base.ErrTaskNotFound) {
		t.Fatalf("stopped VM discovered: %v", err)
	}
}
