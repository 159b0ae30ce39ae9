package client_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/nomadish/nomadish/client"
	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/client/pluginmgr"
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/catalog"
	"github.com/nomadish/nomadish/structs"
)

// discoveringPlugin is a FakePlugin that also discovers tasks: it finds
// any running task of the fake driver whose ID starts with
// "<alloc>/<task>/", as a real driver finds one by its labels or handle
// file.
type discoveringPlugin struct {
	*clienttest.FakePlugin
}

func (p discoveringPlugin) DiscoverTask(cfg *base.TaskConfig) (*base.TaskHandle, error) {
	for _, id := range p.Running() {
		if strings.HasPrefix(id, cfg.AllocID+"/"+cfg.Name+"/") {
			c := *cfg
			c.ID = id
			h := &base.TaskHandle{Version: 1, Config: &c, State: base.TaskStateRunning, DriverState: []byte(id)}
			return h, p.RecoverTask(h)
		}
	}
	return nil, fmt.Errorf("fake: %w", base.ErrTaskNotFound)
}

type discoveringLauncher struct {
	mu  sync.Mutex
	drv *clienttest.FakeDriver
}

func (l *discoveringLauncher) launch(name string) (pluginmgr.Plugin, func(), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := clienttest.NewFakePlugin(name, l.drv)
	return discoveringPlugin{p}, p.Kill, nil
}

// TestOrphanAllocSwept: an alloc dir left by a client that lost its state,
// for an allocation the servers no longer have, is swept after the first
// sync: its still-running task is found through the driver and stopped,
// and the dir removed. An alloc the servers still have is left alone.
func TestOrphanAllocSwept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := clienttest.NewFakeServer()
		defer srv.Close()
		drv := clienttest.NewFakeDriver()
		l := &discoveringLauncher{drv: drv}
		dir := t.TempDir()
		orphan := filepath.Join(dir, "alloc", "orphan1")
		if err := os.MkdirAll(filepath.Join(orphan, "t", "local"), 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := drv.StartTask(&base.TaskConfig{ID: "orphan1/t/old", Name: "t", AllocID: "orphan1"}); err != nil {
			t.Fatal(err)
		}
		c, err := client.New(&client.Config{DataDir: dir, NodeName: "n1", Datacenter: "dc1", Version: "0.1.0",
			Drivers: catalog.Builtin, PluginConfig: map[string]map[string]any{"mock_driver": {}}, Launcher: l.launch}, srv)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Shutdown()
		synctest.Wait()
		a := batchAlloc(c.NodeID(), "kept1", map[string]any{}, structs.JobTypeService)
		srv.AddAlloc(a)
		synctest.Wait()

		if running := drv.Running(); len(running) != 1 || running[0] == "orphan1/t/old" {
			t.Fatalf("running = %v: want the orphan stopped and the kept alloc's task running", running)
		}
		if _, err := os.Stat(orphan); !os.IsNotExist(err) {
			t.Fatalf("orphan alloc dir not removed: %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "alloc", "kept1")); err != nil {
			t.Fatalf("live alloc dir: %v", err)
		}
	})
}
