package drivers

import (
	"errors"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
)

// UpdateTask and the UpdateResources capability cross the plugin's gRPC
// hop; an unknown task keeps its error.
func TestPluginUpdateTask(t *testing.T) {
	d, _, _ := launchT(t, "raw_exec")
	if err := d.SetConfig(map[string]any{"enabled": true}); err != nil {
		t.Fatal(err)
	}
	c, err := d.Capabilities()
	if err != nil || !c.UpdateResources {
		t.Fatalf("capabilities %+v, %v", c, err)
	}
	u, ok := d.(base.ResourceUpdater)
	if !ok {
		t.Fatal("plugin client is not a ResourceUpdater")
	}
	cfg := shTask(t, "echo ready; while :; do sleep 0.05; done")
	if _, err := d.StartTask(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.DestroyTask(cfg.ID, true) })
	waitForLog(t, cfg.StdoutPath, "ready")
	if err := u.UpdateTask(cfg.ID, &base.Resources{CPUShares: 200, MemoryMB: 96}); err != nil {
		t.Fatal(err)
	}
	if err := u.UpdateTask("nope", &base.Resources{MemoryMB: 96}); !errors.Is(err, base.ErrTaskNotFound) {
		t.Fatalf("unknown task: %v", err)
	}
	if err := d.StopTask(cfg.ID, time.Second, ""); err != nil {
		t.Fatal(err)
	}
}
