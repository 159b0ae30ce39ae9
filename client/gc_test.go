package client_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/client"
	"github.com/nomadish/nomadish/client/allocgc"
	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/client/network"
	"github.com/nomadish/nomadish/client/state"
	"github.com/nomadish/nomadish/drivers/catalog"
	"github.com/nomadish/nomadish/structs"
)

// gcClient starts a client whose gc uses cfg and measures disk with disk.
func gcClient(t *testing.T, srv *clienttest.FakeServer, l *fakeLauncher, dir string, cfg allocgc.Config, disk allocgc.DiskStats) *client.Client {
	t.Helper()
	c, err := client.New(&client.Config{DataDir: dir, NodeName: "n1", Datacenter: "dc1", Version: "0.1.0",
		Drivers: catalog.Builtin, PluginConfig: map[string]map[string]any{"mock_driver": {}, "raw_exec": {"enabled": false}},
		Launcher: l.launch, Network: network.Config{CNIPath: filepath.Join(dir, "no-cni")},
		GC: cfg, GCDiskStats: disk}, srv)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type fixedDisk struct {
	mu sync.Mutex
	u  allocgc.DiskUsage
}

func (d *fixedDisk) Usage(string) (allocgc.DiskUsage, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.u, nil
}

func (d *fixedDisk) set(u allocgc.DiskUsage) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.u = u
}

// storedAllocs reads the client state db of dir (the client shut down).
func storedAllocs(t *testing.T, dir string) map[string]bool {
	t.Helper()
	db, err := state.Open(filepath.Join(dir, "client", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	allocs, err := db.Allocs()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, a := range allocs {
		out[a.ID] = true
	}
	return out
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestAllocGC: alloc gc of a running allocation is a 400 and keeps it;
// of a terminal one removes its dir and its stored state, and it is not
// started again though the servers still list it, nor after a restart.
func TestAllocGC(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := clienttest.NewFakeServer()
		defer srv.Close()
		dir := t.TempDir()
		l := &fakeLauncher{drv: clienttest.NewFakeDriver()}
		c := gcClient(t, srv, l, dir, allocgc.Config{}, &fixedDisk{})
		synctest.Wait()
		srv.AddAlloc(batchAlloc(c.NodeID(), "done", map[string]any{"run_for": "10ms"}, structs.JobTypeBatch))
		srv.AddAlloc(batchAlloc(c.NodeID(), "live", nil, structs.JobTypeService))
		settle()
		if got := srv.Alloc("done").ClientStatus; got != structs.AllocClientStatusComplete {
			t.Fatalf("done: status %s", got)
		}
		ctx := context.Background()
		if err := c.GCAlloc(ctx, "live"); codeOf(err) != 400 {
			t.Fatalf("gc of a running alloc: %v, want a 400", err)
		}
		if err := c.GCAlloc(ctx, "nope"); codeOf(err) != 404 {
			t.Fatalf("gc of an unknown alloc: %v, want a 404", err)
		}
		if err := c.GCAlloc(ctx, "done"); err != nil {
			t.Fatal(err)
		}
		if exists(filepath.Join(dir, "alloc", "done")) {
			t.Fatal("the collected alloc's dir is still there")
		}
		if !exists(filepath.Join(dir, "alloc", "live")) || len(l.drv.Running()) != 1 {
			t.Fatalf("the live alloc was touched: running %v", l.drv.Running())
		}
		if _, err := c.AllocDir("done"); codeOf(err) != 404 {
			t.Fatalf("collected alloc still served: %v", err)
		}
		// A newer version from the servers does not bring it back.
		a := srv.Alloc("done")
		a.AllocModifyIndex += 100
		srv.AddAlloc(a)
		settle()
		if exists(filepath.Join(dir, "alloc", "done")) || len(l.drv.Started()) != 2 {
			t.Fatalf("collected alloc started again: %d starts", len(l.drv.Started()))
		}
		if err := c.Shutdown(); err != nil {
			t.Fatal(err)
		}
		if stored := storedAllocs(t, dir); stored["done"] || !stored["live"] {
			t.Fatalf("stored allocs after gc: %v", stored)
		}
		c2 := gcClient(t, srv, l, dir, allocgc.Config{}, &fixedDisk{})
		settle()
		defer c2.Shutdown()
		if exists(filepath.Join(dir, "alloc", "done")) || len(l.drv.Started()) != 2 {
			t.Fatalf("collected alloc came back after a restart: %d starts", len(l.drv.Started()))
		}
	})
}

// TestServerGoneGC: a terminal allocation the servers no longer list is
// destroyed (dir and state), and a restart does not bring it back.
func TestServerGoneGC(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := clienttest.NewFakeServer()
		defer srv.Close()
		dir := t.TempDir()
		l := &fakeLauncher{drv: clienttest.NewFakeDriver()}
		c := gcClient(t, srv, l, dir, allocgc.Config{}, &fixedDisk{})
		synctest.Wait()
		srv.AddAlloc(batchAlloc(c.NodeID(), "done", map[string]any{"run_for": "10ms", "stdout_string": "x\n"}, structs.JobTypeBatch))
		settle()
		logs := filepath.Join(dir, "alloc", "done", "alloc", "logs")
		if !exists(logs) {
			t.Fatal("no logs dir before gc")
		}
		srv.RemoveAlloc("done")
		settle()
		if exists(filepath.Join(dir, "alloc", "done")) {
			t.Fatal("the alloc dir of an allocation the servers dropped is still there")
		}
		c.Shutdown()
		if stored := storedAllocs(t, dir); stored["done"] {
			t.Fatalf("stored allocs: %v", stored)
		}
		c2 := gcClient(t, srv, l, dir, allocgc.Config{}, &fixedDisk{})
		settle()
		defer c2.Shutdown()
		if _, err := c2.AllocDir("done"); codeOf(err) != 404 || len(l.drv.Started()) != 1 {
			t.Fatalf("after a restart: %v, %d starts", err, len(l.drv.Started()))
		}
	})
}

// TestGCLimits: over gc_max_allocs the oldest terminal allocation goes at
// the next interval; over the disk threshold the next oldest; node gc
// takes every terminal one; the running one stays throughout.
func TestGCLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := clienttest.NewFakeServer()
		defer srv.Close()
		dir := t.TempDir()
		l := &fakeLauncher{drv: clienttest.NewFakeDriver()}
		disk := &fixedDisk{}
		c := gcClient(t, srv, l, dir, allocgc.Config{Interval: time.Minute, MaxAllocs: 4}, disk)
		defer c.Shutdown()
		synctest.Wait()
		srv.AddAlloc(batchAlloc(c.NodeID(), "live", nil, structs.JobTypeService))
		for i, id := range []string{"d1", "d2", "d3", "d4"} {
			srv.AddAlloc(batchAlloc(c.NodeID(), id, map[string]any{"run_for": "10ms"}, structs.JobTypeBatch))
			settle()
			time.Sleep(time.Duration(i+1) * time.Second) // finish times apart
		}
		gone := func(ids ...string) bool {
			for _, id := range ids {
				if exists(filepath.Join(dir, "alloc", id)) {
					return false
				}
			}
			return true
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if !gone("d1") || gone("d2") || gone("d3") || gone("d4") {
			t.Fatal("over gc_max_allocs: want exactly the oldest (d1) collected")
		}
		disk.set(allocgc.DiskUsage{UsedPercent: 95})
		time.Sleep(time.Minute)
		synctest.Wait()
		// Each pass measures again: the fake disk stays full, so every
		// terminal allocation goes, oldest first, the live one stays.
		if !gone("d2", "d3", "d4") || gone("live") || len(l.drv.Running()) != 1 {
			t.Fatalf("over the disk threshold: running %v", l.drv.Running())
		}
		srv.AddAlloc(batchAlloc(c.NodeID(), "d5", map[string]any{"run_for": "10ms"}, structs.JobTypeBatch))
		disk.set(allocgc.DiskUsage{})
		settle()
		n, err := c.GCNode(context.Background())
		if err != nil || n != 1 || !gone("d5") || gone("live") {
			t.Fatalf("node gc: %d %v", n, err)
		}
	})
}

// TestGCMakesRoomForNewAllocs: a new allocation taking the client over
// gc_max_allocs has the oldest terminal one destroyed at once, not at the
// next gc_interval.
func TestGCMakesRoomForNewAllocs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := clienttest.NewFakeServer()
		defer srv.Close()
		dir := t.TempDir()
		l := &fakeLauncher{drv: clienttest.NewFakeDriver()}
		c := gcClient(t, srv, l, dir, allocgc.Config{Interval: time.Hour, MaxAllocs: 2}, &fixedDisk{})
		defer c.Shutdown()
		synctest.Wait()
		for _, id := range []string{"d1", "d2"} {
			srv.AddAlloc(batchAlloc(c.NodeID(), id, map[string]any{"run_for": "10ms"}, structs.JobTypeBatch))
			settle()
			time.Sleep(time.Second)
		}
		srv.AddAlloc(batchAlloc(c.NodeID(), "new", nil, structs.JobTypeService))
		settle()
		if exists(filepath.Join(dir, "alloc", "d1")) || !exists(filepath.Join(dir, "alloc", "d2")) {
			t.Fatal("want the oldest terminal alloc (d1) collected at once, d2 kept")
		}
		if len(l.drv.Running()) != 1 {
			t.Fatalf("running %v, want the new alloc", l.drv.Running())
		}
	})
}
