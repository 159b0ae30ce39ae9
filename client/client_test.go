package client_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/client"
	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/client/network"
	"github.com/nomadish/nomadish/client/pluginmgr"
	"github.com/nomadish/nomadish/drivers/catalog"
	"github.com/nomadish/nomadish/structs"
)

// fakeLauncher launches FakePlugins over one shared FakeDriver, so tasks
// outlive a client (like tasks outlive a real plugin's executor).
type fakeLauncher struct {
	mu       sync.Mutex
	drv      *clienttest.FakeDriver
	launched []string
}

func (l *fakeLauncher) launch(name string) (pluginmgr.Plugin, func(), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.launched = append(l.launched, name)
	p := clienttest.NewFakePlugin(name, l.drv)
	return p, p.Kill, nil
}

// newClient starts a client of srv, or of rpc[0] when given (e.g. a
// ServerManager in front of srv).
// newClient starts a client on the fake server. Its CNI path is empty (no
// bridge mode, no plugins run): TestCNIVersionsAfterStart covers them.
func newClient(t *testing.T, srv *clienttest.FakeServer, l *fakeLauncher, dataDir string, rpc ...client.RPCer) *client.Client {
	t.Helper()
	var r client.RPCer = srv
	if len(rpc) > 0 {
		r = rpc[0]
	}
	c, err := client.New(&client.Config{DataDir: dataDir, NodeName: "n1", Datacenter: "dc1", Version: "0.1.0",
		Drivers: catalog.Builtin, PluginConfig: map[string]map[string]any{"mock_driver": {}, "raw_exec": {"enabled": false}},
		Launcher: l.launch, Network: network.Config{CNIPath: filepath.Join(dataDir, "no-cni")}}, r)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func batchAlloc(nodeID, id string, cfg map[string]any, jobType string) *structs.Allocation {
	job := &structs.Job{ID: "example", Type: jobType, TaskGroups: []*structs.TaskGroup{{
		Name: "g", Tasks: []*structs.Task{{Name: "t", Driver: "mock_driver", Config: cfg}}}}}
	job.Canonicalize()
	return &structs.Allocation{ID: id, NodeID: nodeID, Name: "example.g[0]", JobID: "example", Job: job,
		TaskGroup: "g", Namespace: "default", DesiredStatus: structs.AllocDesiredStatusRun,
		ClientStatus: structs.AllocClientStatusPending, AllocatedResources: structs.AllocatedFor(job.TaskGroups[0])}
}

// TestCNIVersionsAfterStart: the plugins.cni.version.<plugin> attributes
// come after the start (each plugin is run once), with a re-registration.
func TestCNIVersionsAfterStart(t *testing.T) {
	if _, err := os.Stat("/usr/lib/cni/bridge"); err != nil {
		t.Fatal("CNI plugins missing: install containernetworking-plugins (scripts/setup.sh test)")
	}
	srv := clienttest.NewFakeServer()
	defer srv.Close()
	l := &fakeLauncher{drv: clienttest.NewFakeDriver()}
	c, err := client.New(&client.Config{DataDir: t.TempDir(), NodeName: "n1", Datacenter: "dc1", Version: "0.1.0",
		Drivers: catalog.Builtin, PluginConfig: map[string]map[string]any{"mock_driver": {}, "raw_exec": {"enabled": false}},
		Launcher: l.launch}, srv)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	deadline := time.Now().Add(30 * time.Second)
	for {
		node := srv.Node(c.NodeID())
		if node != nil && node.Attributes["plugins.cni.version.bridge"] != "" && node.Attributes["plugins.cni.version.portmap"] != "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no plugins.cni.version attributes: %+v", node)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRegisterAndHeartbeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := clienttest.NewFakeServer()
		defer srv.Close()
		l := &fakeLauncher{drv: clienttest.NewFakeDriver()}
		dir := t.TempDir()
		c := newClient(t, srv, l, dir)
		synctest.Wait()
		node := srv.Node(c.NodeID())
		if node == nil || node.Status != structs.NodeStatusReady || node.Name != "n1" {
			t.Fatalf("node %+v", node)
		}
		if !node.Drivers["mock_driver"].Healthy || node.Attributes["driver.mock_driver"] != "1" || node.Attributes["driver.raw_exec"] != "" {
			t.Fatalf("drivers %v attrs %v", node.Drivers, node.Attributes)
		}
		if node.NodeResources.Cpu.CpuShares <= 0 || node.Attributes["nomad.version"] != "0.1.0" {
			t.Fatalf("resources %+v", node.NodeResources)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		regs, hbs := srv.Counts()
		// TTL 10s: a heartbeat every 4-5s.
		if regs != 1 || hbs < 12 || hbs > 15 {
			t.Fatalf("registers %d heartbeats %d", regs, hbs)
		}
		srv.ForgetNode(c.NodeID())
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if regs, _ := srv.Counts(); regs != 2 || srv.Node(c.NodeID()) == nil {
			t.Fatalf("not re-registered after 404: registers %d", regs)
		}
		id := c.NodeID()
		if err := c.Shutdown(); err != nil {
			t.Fatal(err)
		}
		c2 := newClient(t, srv, l, dir)
		defer c2.Shutdown()
		if c2.NodeID() != id {
			t.Fatalf("node ID changed across restart: %s -> %s", id, c2.NodeID())
		}
	})
}

func TestRegisterRetriesUntilServerAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := clienttest.NewFakeServer()
		defer srv.Close()
		srv.FailNext(structs.NodeRegisterRPC, structs.ErrNoLeader)
		c := newClient(t, srv, &fakeLauncher{drv: clienttest.NewFakeDriver()}, t.TempDir())
		defer c.Shutdown()
		start := time.Now()
		for srv.Node(c.NodeID()) == nil {
			time.Sleep(10 * time.Millisecond)
		}
		if el := time.Since(start); el > 200*time.Millisecond {
			t.Fatalf("registered after %v", el)
		}
	})
}

func TestRunBatchAllocToComplete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := clienttest.NewFakeServer()
		defer srv.Close()
		c := newClient(t, srv, &fakeLauncher{drv: clienttest.NewFakeDriver()}, t.TempDir())
		defer c.Shutdown()
		synctest.Wait()
		srv.AddAlloc(batchAlloc(c.NodeID(), "a1", map[string]any{"run_for": "100ms", "stdout_string": "hello\n"}, structs.JobTypeBatch))
		time.Sleep(20 * time.Millisecond)
		synctest.Wait()
		if got := srv.Alloc("a1").ClientStatus; got != structs.AllocClientStatusRunning {
			t.Fatalf("status after start = %s", got)
		}
		start := time.Now()
		for srv.Alloc("a1").ClientStatus != structs.AllocClientStatusComplete {
			time.Sleep(time.Millisecond)
		}
		if el := time.Since(start); el > 120*time.Millisecond {
			t.Fatalf("complete reported %v after start (task runs 100ms)", el)
		}
		a := srv.Alloc("a1")
		if s := a.TaskStates["t"]; s.State != structs.TaskStateDead || s.Failed {
			t.Fatalf("task state %+v", s)
		}
		for _, batch := range srv.Updates() {
			seen := map[string]bool{}
			for _, u := range batch {
				if seen[u.ID] || u.NodeID != c.NodeID() {
					t.Fatalf("bad batch %+v", batch)
				}
				seen[u.ID] = true
			}
		}
		var buf bytes.Buffer
		if err := c.Logs(context.Background(), "a1", "t", "stdout", "start", 0, false, &buf); err != nil || buf.String() != "hello\n" {
			t.Fatalf("logs %q %v", buf.String(), err)
		}
		buf.Reset()
		if err := c.Logs(context.Background(), "a1", "t", "stdout", "end", 3, true, &buf); err != nil || buf.String() != "lo\n" {
			t.Fatalf("follow of dead task: %q %v", buf.String(), err)
		}
	})
}

func codeOf(err error) int {
	var ce *structs.CodedError
	if errors.As(err, &ce) {
		return ce.Code
	}
	return 0
}

func TestLogsErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := clienttest.NewFakeServer()
		defer srv.Close()
		c := newClient(t, srv, &fakeLauncher{drv: clienttest.NewFakeDriver()}, t.TempDir())
		defer c.Shutdown()
		synctest.Wait()
		srv.AddAlloc(batchAlloc(c.NodeID(), "a1", nil, structs.JobTypeService))
		settle()
		ctx := context.Background()
		var buf bytes.Buffer
		for _, tc := range []struct {
			alloc, task, typ, origin string
			code                     int
		}{
			{"nope", "t", "stdout", "start", 404},
			{"a1", "nope", "stdout", "start", 404},
			{"a1", "t", "stdin", "start", 400},
			{"a1", "t", "stdout", "middle", 400},
		} {
			if err := c.Logs(ctx, tc.alloc, tc.task, tc.typ, tc.origin, 0, false, &buf); codeOf(err) != tc.code {
				t.Errorf("%+v: err %v", tc, err)
			}
		}
	})
}

func TestStopThenGarbageCollect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := clienttest.NewFakeServer()
		defer srv.Close()
		dir := t.TempDir()
		l := &fakeLauncher{drv: clienttest.NewFakeDriver()}
		c := newClient(t, srv, l, dir)
		defer c.Shutdown()
		synctest.Wait()
		srv.AddAlloc(batchAlloc(c.NodeID(), "a1", nil, structs.JobTypeService))
		settle()
		if got := srv.Alloc("a1").ClientStatus; got != structs.AllocClientStatusRunning {
			t.Fatalf("status %s", got)
		}
		srv.StopAlloc("a1")
		settle()
		a := srv.Alloc("a1")
		if a.ClientStatus != structs.AllocClientStatusComplete || !strings.Contains(eventTypes(a.TaskStates["t"]), "Killed") {
			t.Fatalf("after stop: %s %s", a.ClientStatus, eventTypes(a.TaskStates["t"]))
		}
		if len(l.drv.Running()) != 0 {
			t.Fatalf("running %v", l.drv.Running())
		}
		allocDir := filepath.Join(dir, "alloc", "a1")
		if _, err := os.Stat(allocDir); err != nil {
			t.Fatal(err)
		}
		srv.RemoveAlloc("a1")
		synctest.Wait()
		if _, err := os.Stat(allocDir); !os.IsNotExist(err) {
			t.Fatalf("alloc dir not collected: %v", err)
		}
	})
}

func eventTypes(s *structs.TaskState) string {
	var out []string
	for _, e := range s.Events {
		out = append(out, e.Type)
	}
	return strings.Join(out, ",")
}

func TestClientRestartReattaches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := clienttest.NewFakeServer()
		defer srv.Close()
		dir := t.TempDir()
		l := &fakeLauncher{drv: clienttest.NewFakeDriver()}
		c := newClient(t, srv, l, dir)
		synctest.Wait()
		srv.AddAlloc(batchAlloc(c.NodeID(), "a1", nil, structs.JobTypeService))
		settle()
		if err := c.Shutdown(); err != nil {
			t.Fatal(err)
		}
		if len(l.drv.Running()) != 1 {
			t.Fatalf("shutdown killed the task: running %v", l.drv.Running())
		}
		c2 := newClient(t, srv, l, dir)
		settle()
		if n := len(l.drv.Started()); n != 1 {
			t.Fatalf("task started %d times", n)
		}
		calls := strings.Join(l.drv.Calls(), "\n")
		if !strings.Contains(calls, "recover a1/t/") {
			t.Fatalf("calls:\n%s", calls)
		}
		if got := srv.Alloc("a1").ClientStatus; got != structs.AllocClientStatusRunning {
			t.Fatalf("status %s", got)
		}
		// Dev-mode semantics are opt-in: a DevMode client kills on shutdown.
		c2.Shutdown()
	})
}

func TestDevModeShutdownKillsTasks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := clienttest.NewFakeServer()
		defer srv.Close()
		l := &fakeLauncher{drv: clienttest.NewFakeDriver()}
		c, err := client.New(&client.Config{DevMode: true, Drivers: catalog.Builtin, PluginConfig: map[string]map[string]any{"mock_driver": nil},
			Launcher: l.launch}, srv)
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		srv.AddAlloc(batchAlloc(c.NodeID(), "a1", nil, structs.JobTypeService))
		settle()
		c.Shutdown()
		if len(l.drv.Running()) != 0 {
			t.Fatalf("running after dev shutdown: %v", l.drv.Running())
		}
		if got := srv.Alloc("a1").ClientStatus; got != structs.AllocClientStatusComplete {
			t.Fatalf("final status not flushed: %s", got)
		}
	})
}

// settle lets the client act on a change and its update batcher send
// (fake time: costs nothing).
func settle() {
	time.Sleep(50 * time.Millisecond)
	synctest.Wait()
}

func TestUpdatesRetriedKeepingNewest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := clienttest.NewFakeServer()
		defer srv.Close()
		c := newClient(t, srv, &fakeLauncher{drv: clienttest.NewFakeDriver()}, t.TempDir())
		defer c.Shutdown()
		synctest.Wait()
		srv.FailNext(structs.NodeUpdateAllocRPC, structs.ErrNoLeader)
		srv.AddAlloc(batchAlloc(c.NodeID(), "a1", map[string]any{"run_for": "10ms"}, structs.JobTypeBatch))
		time.Sleep(time.Second)
		synctest.Wait()
		if got := srv.Alloc("a1").ClientStatus; got != structs.AllocClientStatusComplete {
			t.Fatalf("status %s", got)
		}
		// The state arrived despite the failed send, one entry per alloc per batch.
		for _, b := range srv.Updates() {
			if len(b) != 1 {
				t.Fatalf("batch of %d for one alloc", len(b))
			}
		}
	})
}

func TestTwoClientsShareAMachine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := clienttest.NewFakeServer()
		defer srv.Close()
		l := &fakeLauncher{drv: clienttest.NewFakeDriver()}
		d1, d2 := t.TempDir(), t.TempDir()
		c1 := newClient(t, srv, l, d1)
		defer c1.Shutdown()
		c2 := newClient(t, srv, l, d2)
		defer c2.Shutdown()
		synctest.Wait()
		if c1.NodeID() == c2.NodeID() || srv.Node(c1.NodeID()) == nil || srv.Node(c2.NodeID()) == nil {
			t.Fatalf("nodes %s %s", c1.NodeID(), c2.NodeID())
		}
		srv.AddAlloc(batchAlloc(c1.NodeID(), "a1", nil, structs.JobTypeService))
		srv.AddAlloc(batchAlloc(c2.NodeID(), "a2", nil, structs.JobTypeService))
		settle()
		for dir, id := range map[string]string{d1: "a1", d2: "a2"} {
			if _, err := os.Stat(filepath.Join(dir, "alloc", id, "alloc", "logs")); err != nil {
				t.Errorf("alloc %s not under its client's dir: %v", id, err)
			}
		}
		if _, err := os.Stat(filepath.Join(d1, "alloc", "a2")); !os.IsNotExist(err) {
			t.Errorf("client 1 ran client 2's alloc")
		}
	})
}
