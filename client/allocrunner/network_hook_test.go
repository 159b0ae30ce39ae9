package allocrunner_test

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nomadish/nomadish/client/allocrunner"
	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/client/network"
	"github.com/nomadish/nomadish/client/network/networktest"
	"github.com/nomadish/nomadish/client/state"
	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// netEnv is a real network manager on a bridge of the test's own, with a
// real client state db.
type netEnv struct {
	mgr  *network.Manager
	db   *state.DB
	root string
	cfg  network.Config
}

func newNetEnv(t *testing.T) *netEnv {
	t.Helper()
	networktest.NeedBridge(t, network.Config{})
	b := make([]byte, 3)
	rand.Read(b)
	cfg := network.Config{BridgeName: "nma" + hex.EncodeToString(b), BridgeSubnet: fmt.Sprintf("10.%d.%d.0/24", 160+b[1]%20, b[0]),
		CacheDir: t.TempDir()}
	t.Cleanup(func() {
		_ = exec.Command("ip", "link", "del", cfg.BridgeName).Run()
		_ = os.RemoveAll(filepath.Join("/var/lib/cni/networks", cfg.BridgeName))
	})
	db, err := state.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &netEnv{mgr: network.NewManager(cfg), db: db, root: t.TempDir(), cfg: cfg}
}

// runner starts an alloc runner whose updates go to ch.
func (e *netEnv) runner(t *testing.T, alloc *structs.Allocation, drv taskrunner.Driver, nm func(string) (base.NetworkManager, bool), ch chan *structs.Allocation) *allocrunner.AllocRunner {
	t.Helper()
	ar, err := allocrunner.New(allocrunner.Config{Alloc: alloc, AllocRoot: e.root, State: e.db,
		Drivers:  func(string) (taskrunner.Driver, error) { return drv, nil },
		OnUpdate: func(a *structs.Allocation) { ch <- a }, Network: e.mgr, NetworkManagerFor: nm})
	if err != nil {
		t.Fatal(err)
	}
	ar.Run()
	return ar
}

func bridgeAlloc(id string) *structs.Allocation {
	a := newAlloc(structs.JobTypeService, &structs.Task{Name: "web", Driver: "mock"})
	a.ID = id
	tg := a.Job.TaskGroups[0]
	tg.Networks = []*structs.NetworkResource{{Mode: structs.NetworkModeBridge, Hostname: "web-host",
		DNS: &structs.DNSConfig{Servers: []string{"192.0.2.53"}}}}
	a.AllocatedResources = &structs.AllocatedResources{Shared: structs.AllocatedSharedResources{
		Ports: []structs.AllocatedPortMapping{{Label: "http", Value: 27001, To: 8080}}}}
	return a
}

// waitUpdate returns the first update ok accepts.
func waitUpdate(ch chan *structs.Allocation, ok func(*structs.Allocation) bool) *structs.Allocation {
	for a := range ch {
		if ok(a) {
			return a
		}
	}
	return nil
}

func running(a *structs.Allocation) bool { return a.ClientStatus == structs.AllocClientStatusRunning }

func drain(ch chan *structs.Allocation) {
	go func() {
		for range ch {
		}
	}()
}

func TestNetworkHookBridge(t *testing.T) {
	e := newNetEnv(t)
	id := "arnet-" + randHex()
	drv := clienttest.NewFakeDriver()
	ch := make(chan *structs.Allocation, 100)
	ar := e.runner(t, bridgeAlloc(id), drv, nil, ch)
	up := waitUpdate(ch, running)
	ns := up.NetworkStatus
	if ns == nil || ns.InterfaceName != "eth0" || !strings.HasPrefix(ns.Address, strings.TrimSuffix(e.cfg.BridgeSubnet, "0/24")) {
		t.Fatalf("network status %+v (subnet %s)", ns, e.cfg.BridgeSubnet)
	}
	path := network.NamespacePath(id)
	started := drv.Started()
	if len(started) != 1 || started[0].Network == nil || started[0].Network.Path != path {
		t.Fatalf("task network %+v", started[0].Network)
	}
	iso := started[0].Network
	hosts, _ := os.ReadFile(iso.HostsPath)
	resolv, _ := os.ReadFile(iso.ResolvConfPath)
	if !strings.Contains(string(hosts), ns.Address+"\tweb-host") || !strings.Contains(string(resolv), "nameserver 192.0.2.53") {
		t.Fatalf("hosts %q resolv %q", hosts, resolv)
	}
	env := started[0].Env
	if env["NOMAD_PORT_http"] != "8080" || env["NOMAD_HOST_PORT_http"] != "27001" || env["NOMAD_ALLOC_IP_http"] != ns.Address {
		t.Fatalf("env %v", env)
	}
	if !network.IsNamespace(path) {
		t.Fatal("no namespace")
	}
	// Stopping the allocation releases the namespace and the record.
	stop := *ar.Alloc()
	stop.DesiredStatus = structs.AllocDesiredStatusStop
	drain(ch)
	ar.Update(&stop)
	<-ar.WaitCh()
	if network.IsNamespace(path) {
		t.Fatal("namespace left after the stop")
	}
	var rec network.Record
	if ok, _ := e.db.GetNetwork(id, &rec); ok {
		t.Fatalf("record left: %+v", rec)
	}
	if err := ar.Destroy(); err != nil {
		t.Fatal(err)
	}
}

// TestNetworkHookRestore: a client restart (Shutdown detaches, a new
// runner restores) keeps the namespace, same inode, no second ADD; the
// restored runner releases it when destroyed.
func TestNetworkHookRestore(t *testing.T) {
	e := newNetEnv(t)
	id := "arrest-" + randHex()
	drv := clienttest.NewFakeDriver()
	ch := make(chan *structs.Allocation, 100)
	alloc := bridgeAlloc(id)
	ar := e.runner(t, alloc, drv, nil, ch)
	first := waitUpdate(ch, running).NetworkStatus
	path := network.NamespacePath(id)
	ino, err := network.NamespaceInode(path)
	if err != nil {
		t.Fatal(err)
	}
	drain(ch)
	ar.Shutdown()
	if !network.IsNamespace(path) {
		t.Fatal("shutdown removed the namespace")
	}
	ch2 := make(chan *structs.Allocation, 100)
	ar2 := e.runner(t, alloc, drv, nil, ch2)
	again := waitUpdate(ch2, func(a *structs.Allocation) bool { return running(a) && a.NetworkStatus != nil }).NetworkStatus
	if ino2, _ := network.NamespaceInode(path); ino2 != ino || again.Address != first.Address {
		t.Fatalf("restored inode %d address %s, was %d %s", ino2, again.Address, ino, first.Address)
	}
	if n := len(drv.Started()); n != 1 {
		t.Fatalf("task started %d times", n)
	}
	drain(ch2)
	if err := ar2.Destroy(); err != nil {
		t.Fatal(err)
	}
	if network.IsNamespace(path) {
		t.Fatal("namespace left after destroy")
	}
}

// fakeNetManager is a driver that makes namespaces itself (as docker's
// infra container does): here a named namespace of its own naming.
type fakeNetManager struct {
	mu               sync.Mutex
	created, removed []string
}

func (f *fakeNetManager) CreateNetwork(allocID string, req *base.NetworkCreateRequest) (*base.NetworkIsolation, bool, error) {
	path := filepath.Join(network.NetnsDir, "fakedrv-"+allocID)
	if err := network.CreateNamespace(path); err != nil {
		return nil, false, err
	}
	f.mu.Lock()
	f.created = append(f.created, allocID+"/"+req.Hostname)
	f.mu.Unlock()
	return &base.NetworkIsolation{Path: path, Labels: map[string]string{"sandbox": allocID}}, true, nil
}

func (f *fakeNetManager) DestroyNetwork(allocID string, spec *base.NetworkIsolation) error {
	f.mu.Lock()
	f.removed = append(f.removed, allocID+"/"+spec.Labels["sandbox"])
	f.mu.Unlock()
	return network.DeleteNamespace(spec.Path)
}

func TestNetworkHookDriverManaged(t *testing.T) {
	e := newNetEnv(t)
	id := "ardrv-" + randHex()
	nm := &fakeNetManager{}
	drv := clienttest.NewFakeDriver()
	ch := make(chan *structs.Allocation, 100)
	ar := e.runner(t, bridgeAlloc(id), drv, func(name string) (base.NetworkManager, bool) { return nm, name == "mock" }, ch)
	up := waitUpdate(ch, running)
	path := filepath.Join(network.NetnsDir, "fakedrv-"+id)
	if got := drv.Started()[0].Network; got == nil || got.Path != path || got.Labels["sandbox"] != id || up.NetworkStatus == nil || up.NetworkStatus.Address == "" {
		t.Fatalf("task network %+v, status %+v", got, up.NetworkStatus)
	}
	if network.IsNamespace(network.NamespacePath(id)) {
		t.Fatal("the client made a namespace of its own too")
	}
	drain(ch)
	if err := ar.Destroy(); err != nil {
		t.Fatal(err)
	}
	nm.mu.Lock()
	defer nm.mu.Unlock()
	if len(nm.created) != 1 || nm.created[0] != id+"/web-host" || len(nm.removed) != 1 || nm.removed[0] != id+"/"+id {
		t.Fatalf("created %v removed %v", nm.created, nm.removed)
	}
	if network.IsNamespace(path) {
		t.Fatal("driver namespace left")
	}
}

// TestNetworkHookWithoutManager: a bridge group on a runner without a
// network manager fails clearly instead of running in the host's network.
func TestNetworkHookWithoutManager(t *testing.T) {
	drv := clienttest.NewFakeDriver()
	ch := make(chan *structs.Allocation, 100)
	ar, err := allocrunner.New(allocrunner.Config{Alloc: bridgeAlloc("nomgr"), AllocRoot: t.TempDir(),
		Drivers: func(string) (taskrunner.Driver, error) { return drv, nil }, OnUpdate: func(a *structs.Allocation) { ch <- a }})
	if err != nil {
		t.Fatal(err)
	}
	ar.Run()
	up := waitUpdate(ch, func(a *structs.Allocation) bool { return a.ClientStatus == structs.AllocClientStatusFailed })
	ev := up.TaskStates["web"].Events
	if len(drv.Started()) != 0 || !strings.Contains(ev[len(ev)-1].Message, `network mode "bridge": this client cannot set up group networks`) {
		t.Fatalf("events %+v", ev)
	}
}

func randHex() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}
