package docker_test

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/drivertest"
)

// TestDiscoverAfterStateLoss: a new plugin that was given no handle (the
// client lost its state) finds the running container by its labels,
// through the plugin protocol, under the task ID it was created with, and
// controls it; a task without a container is ErrTaskNotFound.
func TestDiscoverAfterStateLoss(t *testing.T) {
	cfg := shTask(t, `echo up; while [ ! -e /alloc/go ]; do sleep 0.2; done; exit 3`)
	cfg.ID = cfg.AllocID + "/web/first001"
	if err := os.MkdirAll(cfg.AllocDir, 0o777); err != nil {
		t.Fatal(err)
	}
	d1, kill1 := launch(t)
	if _, err := d1.StartTask(cfg); err != nil {
		t.Fatalf("StartTask: %v", err)
	}
	waitForLog(t, cfg.StdoutPath, "up")
	id := containerID(t, d1, cfg.ID)
	kill1()

	d2, _ := launch(t)
	disc, ok := d2.(base.TaskDiscoverer)
	if !ok {
		t.Fatal("the plugin client does not offer DiscoverTask")
	}
	fresh := *cfg
	fresh.ID = cfg.AllocID + "/web/second02"
	h, err := disc.DiscoverTask(&fresh)
	if err != nil {
		t.Fatalf("DiscoverTask: %v", err)
	}
	if h.Config.ID != cfg.ID || containerID(t, d2, cfg.ID) != id {
		t.Fatalf("discovered %s (container %s), want %s (container %s)", h.Config.ID, containerID(t, d2, cfg.ID), cfg.ID, id)
	}
	other := fresh
	other.Name = "db"
	if _, err := disc.DiscoverTask(&other); !errors.Is(err, base.ErrTaskNotFound) {
		t.Fatalf("task without a container: %v, want ErrTaskNotFound", err)
	}
	if err := os.WriteFile(cfg.AllocDir+"/go", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if res := drivertest.WaitExit(t, d2, cfg.ID, 20*time.Second); res.ExitCode != 3 {
		t.Fatalf("exit of the discovered task = %+v, want code 3", res)
	}
	if _, err := disc.DiscoverTask(&fresh); !errors.Is(err, base.ErrTaskNotFound) {
		t.Fatalf("exited container discovered: %v", err)
	}
	if err := d2.DestroyTask(cfg.ID, true); err != nil {
		t.Fatal(err)
	}
}
