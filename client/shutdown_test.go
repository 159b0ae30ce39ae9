package client_test

import (
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/client"
	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/drivers/catalog"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/version"
)

// recordingServer counts the RPCs a client makes.
type recordingServer struct {
	*clienttest.FakeServer
	calls chan string
}

func (s *recordingServer) RPC(method string, args, reply any) error {
	select {
	case s.calls <- method:
	default:
	}
	return s.FakeServer.RPC(method, args, reply)
}

// TestShutdownDoesNotWaitForBlockingQuery: the alloc watcher sits in a
// blocking Node.GetClientAllocs that the server would hold for 5 minutes;
// Shutdown returns at once (no fake time passes) and the watcher is gone
// with it: no RPC is made after Shutdown returned.
func TestShutdownDoesNotWaitForBlockingQuery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := clienttest.NewFakeServer()
		defer fake.Close()
		srv := &recordingServer{FakeServer: fake, calls: make(chan string, 100)}
		c, err := client.New(&client.Config{DataDir: t.TempDir(), Launcher: (&fakeLauncher{drv: clienttest.NewFakeDriver()}).launch,
			Drivers: catalog.Builtin, PluginConfig: map[string]map[string]any{"mock_driver": {}}}, srv)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second) // registered, first GetClientAllocs answered, second one blocked
		synctest.Wait()
		if fake.Node(c.NodeID()) == nil {
			t.Fatal("not registered")
		}
		start := time.Now()
		if err := c.Shutdown(); err != nil {
			t.Fatal(err)
		}
		if el := time.Since(start); el != 0 {
			t.Fatalf("Shutdown waited %v for the blocking query", el)
		}
		for len(srv.calls) > 0 {
			<-srv.calls
		}
		fake.AddAlloc(batchAlloc(c.NodeID(), "a1", nil, structs.JobTypeService)) // wakes the abandoned query
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := len(srv.calls); n != 0 {
			t.Fatalf("%d RPCs after Shutdown returned (first %s)", n, <-srv.calls)
		}
	})
}

// TestStateAndAllocDirs: state_dir and alloc_dir move the client's state
// and the allocations out of the data dir; by default they live under it.
func TestStateAndAllocDirs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := clienttest.NewFakeServer()
		defer srv.Close()
		data, stateDir, allocDir := t.TempDir(), filepath.Join(t.TempDir(), "st"), filepath.Join(t.TempDir(), "al")
		c, err := client.New(&client.Config{DataDir: data, StateDir: stateDir, AllocDir: allocDir,
			Launcher: (&fakeLauncher{drv: clienttest.NewFakeDriver()}).launch, Drivers: catalog.Builtin, PluginConfig: map[string]map[string]any{"mock_driver": {}}}, srv)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Shutdown()
		synctest.Wait()
		srv.AddAlloc(batchAlloc(c.NodeID(), "a1", nil, structs.JobTypeService))
		settle()
		for _, p := range []string{filepath.Join(stateDir, "state.db"), filepath.Join(stateDir, "node-id"), filepath.Join(allocDir, "a1", "alloc")} {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s: %v", p, err)
			}
		}
		for _, p := range []string{"client", "alloc"} {
			if _, err := os.Stat(filepath.Join(data, p)); !os.IsNotExist(err) {
				t.Errorf("%s created in the data dir (%v)", p, err)
			}
		}
		if v := srv.Node(c.NodeID()).Attributes["nomad.version"]; v != version.Version {
			t.Errorf("nomad.version = %q, want %q (the default)", v, version.Version)
		}
	})
}
