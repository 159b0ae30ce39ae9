package docker_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/docker"
)

// TestDanglingContainersRemoved: a container whose alloc dir is gone and
// that no driver tracks is removed; one whose alloc dir exists (another
// client's, say) and a tracked one are left alone.
func TestDanglingContainersRemoved(t *testing.T) {
	cli := engineClient(t)
	starter := newDriver(t)
	orphan := shTask(t, `while true; do sleep 1; done`)
	other := shTask(t, `while true; do sleep 1; done`)
	for _, c := range []*base.TaskConfig{orphan, other} {
		if err := os.MkdirAll(c.AllocDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := starter.StartTask(c); err != nil {
			t.Fatal(err)
		}
	}
	orphanID, otherID := containerID(t, starter, orphan.ID), containerID(t, starter, other.ID)
	if err := os.RemoveAll(orphan.AllocDir); err != nil {
		t.Fatal(err)
	}
	// A new plugin process (the old one died) with no grace: neither task tracked.
	d := docker.New(nil).(*docker.Driver)
	cfg := map[string]any{"gc": []any{map[string]any{"dangling_containers": []any{map[string]any{"creation_grace": "1ns", "period": "1h"}}}}}
	if err := d.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	removed, err := d.ReconcileDangling(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(removed, orphanID) || slices.Contains(removed, otherID) {
		t.Fatalf("removed %v, want %s and not %s", removed, orphanID, otherID)
	}
	if _, err := cli.ContainerInspect(ctx, orphanID); err == nil {
		t.Errorf("orphan %s still exists", orphanID)
	}
	if info, err := cli.ContainerInspect(ctx, otherID); err != nil || !info.State.Running {
		t.Errorf("container with a live alloc dir: %v", err)
	}
}

func TestDanglingConfigErrorsNameTheKey(t *testing.T) {
	d := docker.New(nil)
	for _, tc := range []struct {
		cfg  map[string]any
		want string
	}{
		{map[string]any{"gc": map[string]any{"dangling_containers": map[string]any{"period": "soon"}}}, "period must be a positive duration"},
		{map[string]any{"gc": map[string]any{"dangling_containers": map[string]any{"enabeld": true}}}, `unknown key "enabeld"`},
		{map[string]any{"gc": map[string]any{"image": "yes"}}, "image must be a bool"},
	} {
		if err := d.SetConfig(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SetConfig(%v) = %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

// TestStartReplacesRunningContainerOfLostHandle: the client lost the handle
// of a running container (it died before persisting it) and starts the task
// again: the old container of the same task is replaced, not an error.
func TestStartReplacesRunningContainerOfLostHandle(t *testing.T) {
	cli := engineClient(t)
	cfg := shTask(t, `while true; do sleep 1; done`)
	first := newDriver(t)
	if _, err := first.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	oldID := containerID(t, first, cfg.ID)
	second := newDriver(t)
	if _, err := second.StartTask(cfg); err != nil {
		t.Fatalf("start after a lost handle: %v", err)
	}
	defer func() { _ = second.DestroyTask(cfg.ID, true) }()
	if newID := containerID(t, second, cfg.ID); newID == oldID {
		t.Fatalf("container not replaced: %s", newID)
	}
	if _, err := cli.ContainerInspect(context.Background(), oldID); err == nil {
		t.Errorf("old container %s still exists", oldID)
	}
}
