package docker_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/docker"
	"github.com/nomadish/nomadish/drivers/drivertest"
)

// allocContainers counts the containers of an allocation, running or not.
func allocContainers(t *testing.T, allocID string) int {
	t.Helper()
	list, err := engineClient(t).ContainerList(context.Background(), container.ListOptions{All: true,
		Filters: filters.NewArgs(filters.Arg("label", docker.LabelAllocID+"="+allocID))})
	if err != nil {
		t.Fatal(err)
	}
	return len(list)
}

// With volumes disabled (the default), a relative volume or bind mount
// climbing out of the allocation directory is refused by StartTask with an
// error naming it, and no container is created; one inside still works.
func TestTraversalVolumesRefusedByTheRealEngine(t *testing.T) {
	d := newDriver(t)
	for name, extra := range map[string]map[string]any{
		"volume": {"volumes": []any{"../../../../../../:/hostroot"}},
		"mount":  {"mount": []any{map[string]any{"type": "bind", "source": "../../..", "target": "/hostroot"}}},
	} {
		cfg := shTask(t, "ls /hostroot/etc")
		for k, v := range extra {
			cfg.Config[k] = v
		}
		_, err := d.StartTask(cfg)
		if !errors.Is(err, docker.ErrHostPath) || !strings.Contains(err.Error(), "outside the allocation directory") {
			t.Errorf("%s: StartTask = %v, want ErrHostPath", name, err)
		}
		if n := allocContainers(t, cfg.AllocID); n != 0 {
			t.Errorf("%s: %d containers created for a refused task", name, n)
		}
	}
	cfg := shTask(t, `echo in > /shared/f`)
	cfg.Config["volumes"] = []any{"../alloc/data:/shared"}
	if err := os.MkdirAll(filepath.Join(cfg.AllocDir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	if res := drivertest.WaitExit(t, d, cfg.ID, 20*time.Second); res.ExitCode != 0 {
		t.Fatalf("exit %+v, stderr %q", res, drivertest.ReadLog(cfg.StderrPath))
	}
	if b, err := os.ReadFile(filepath.Join(cfg.AllocDir, "data", "f")); err != nil || string(b) != "in\n" {
		t.Errorf("file written through the shared volume: %q %v", b, err)
	}
}

// A task that makes a symlink to / in its shared alloc dir cannot have a
// later task (or its own restart) mount the host's root through it.
func TestSymlinkMadeByTheTaskIsNotFollowedOut(t *testing.T) {
	d := newDriver(t)
	first := shTask(t, `ln -s / /alloc/data/root && ln -s ../../../../../../../../../../etc /alloc/data/rel`)
	if err := os.MkdirAll(filepath.Join(first.AllocDir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := d.StartTask(first); err != nil {
		t.Fatal(err)
	}
	if res := drivertest.WaitExit(t, d, first.ID, 20*time.Second); res.ExitCode != 0 {
		t.Fatalf("exit %+v, stderr %q", res, drivertest.ReadLog(first.StderrPath))
	}
	if _, err := os.Lstat(filepath.Join(first.AllocDir, "data", "root")); err != nil {
		t.Fatalf("the task's symlink is not there: %v", err)
	}
	for i, v := range []string{"../alloc/data/root:/hostroot", "../alloc/data/root/etc:/e", "../alloc/data/rel:/e"} {
		second := &base.TaskConfig{}
		*second = *first
		second.ID, second.Name = first.AllocID+"/second"+string(rune('a'+i)), "second"+string(rune('a'+i))
		second.Config = map[string]any{"image": first.Config["image"], "command": "/bin/sh",
			"args": []any{"-c", "ls /hostroot"}, "volumes": []any{v}}
		if _, err := d.StartTask(second); !errors.Is(err, docker.ErrHostPath) {
			t.Errorf("volume %q through the task's symlink: %v, want ErrHostPath", v, err)
		}
	}
	if n := allocContainers(t, first.AllocID); n != 1 {
		t.Errorf("%d containers, want only the first task's", n)
	}
}
