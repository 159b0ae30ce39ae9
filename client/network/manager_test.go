package network_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/client/network"
	"github.com/nomadish/nomadish/client/network/networktest"
	"github.com/nomadish/nomadish/structs"
)

// testConfig is a bridge of the test's own (name and /24 subnet picked at
// random), removed with its leases at the end, so tests run side by side.
func testConfig(t *testing.T) network.Config {
	t.Helper()
	b := make([]byte, 3)
	rand.Read(b)
	n, _ := rand.Int(rand.Reader, big.NewInt(200))
	cfg := network.Config{
		BridgeName:   "nmt" + hex.EncodeToString(b),
		BridgeSubnet: fmt.Sprintf("10.%d.%d.0/24", 180+n.Int64()%40, b[0]),
		CacheDir:     t.TempDir(),
	}.WithDefaults()
	t.Cleanup(func() {
		_ = exec.Command("ip", "link", "del", cfg.BridgeName).Run()
		_ = os.RemoveAll(leaseDir(cfg))
	})
	return cfg
}

func leaseDir(cfg network.Config) string {
	return filepath.Join("/var/lib/cni/networks", cfg.BridgeName)
}

// leases lists host-local's lease files (one per address held).
func leases(t *testing.T, cfg network.Config) []string {
	t.Helper()
	entries, err := os.ReadDir(leaseDir(cfg))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.Count(e.Name(), ".") == 3 { // an IPv4 address
			out = append(out, e.Name())
		}
	}
	return out
}

func listed(name string) bool {
	out, _ := exec.Command("ip", "netns", "list").Output()
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == name {
			return true
		}
	}
	return false
}

func TestNamespaceCreateDelete(t *testing.T) {
	networktest.NeedBridge(t, network.Config{})
	id := "nstest-" + randomID()
	path := network.NamespacePath(id)
	if err := network.CreateNamespace(path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = network.DeleteNamespace(path) })
	if !network.IsNamespace(path) || !listed(network.NamespacePrefix+id) {
		t.Fatalf("%s is not a listed namespace", path)
	}
	ino, err := network.NamespaceInode(path)
	self, _ := network.NamespaceInode("/proc/self/ns/net")
	if err != nil || ino == self {
		t.Fatalf("namespace inode %d (agent's %d): %v", ino, self, err)
	}
	// The agent's threads stay in the host's namespace.
	if now, _ := network.NamespaceInode("/proc/self/ns/net"); now != self {
		t.Fatal("the agent changed namespace")
	}
	if err := network.CreateNamespace(path); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("second create: %v", err)
	}
	if err := network.DeleteNamespace(path); err != nil {
		t.Fatal(err)
	}
	if network.IsNamespace(path) || listed(network.NamespacePrefix+id) {
		t.Fatal("namespace still there")
	}
	if err := network.DeleteNamespace(path); err != nil {
		t.Fatalf("deleting an absent namespace: %v", err)
	}
}

func TestBridgeSetupTeardown(t *testing.T) {
	networktest.NeedBridge(t, network.Config{})
	cfg := testConfig(t)
	m := network.NewManager(cfg)
	ctx := context.Background()
	saved := 0
	setup := func(id string, ports []structs.AllocatedPortMapping) *network.Record {
		rec, err := m.Setup(ctx, network.Request{AllocID: id, Mode: structs.NetworkModeBridge, Ports: ports},
			network.NamedManager{}, func(*network.Record) error { saved++; return nil })
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = m.Teardown(ctx, rec, network.NamedManager{}) })
		return rec
	}
	a, b := "bt-"+randomID(), "bt-"+randomID()
	ra := setup(a, []structs.AllocatedPortMapping{{Label: "http", Value: 28080, To: 8080}})
	rb := setup(b, nil)
	if saved != 4 { // before and after ADD, each
		t.Fatalf("saved %d times", saved)
	}
	if ra.NSPath == rb.NSPath || ra.Status.Address == "" || ra.Status.Address == rb.Status.Address || ra.Status.InterfaceName != "eth0" {
		t.Fatalf("a %+v %+v, b %+v %+v", ra, ra.Status, rb, rb.Status)
	}
	if !m.Alive(ra) {
		t.Fatal("a not alive")
	}
	// The address is on eth0 inside the namespace.
	out, err := exec.Command("ip", "netns", "exec", network.NamespacePrefix+a, "ip", "-4", "addr", "show", "eth0").CombinedOutput()
	if err != nil || !strings.Contains(string(out), ra.Status.Address+"/24") {
		t.Fatalf("eth0 in the namespace: %s %v", out, err)
	}
	if got := leases(t, cfg); len(got) != 2 {
		t.Fatalf("leases %v", got)
	}
	if err := m.Teardown(ctx, ra, network.NamedManager{}); err != nil {
		t.Fatal(err)
	}
	if listed(network.NamespacePrefix+a) || m.Alive(ra) {
		t.Fatal("namespace a still there")
	}
	if got := leases(t, cfg); len(got) != 1 || got[0] != rb.Status.Address {
		t.Fatalf("leases after teardown of a: %v", got)
	}
	// Tearing down again is not an error (a client that crashed mid-way retries).
	if err := m.Teardown(ctx, ra, network.NamedManager{}); err != nil {
		t.Fatalf("second teardown: %v", err)
	}
}

func TestNoneAndUserCNIModes(t *testing.T) {
	networktest.NeedBridge(t, network.Config{})
	cfg := testConfig(t)
	cfg.ConfigDir = t.TempDir()
	user, err := network.BridgeConflist(cfg) // a user conflist: the same plugins on the test's bridge
	if err != nil {
		t.Fatal(err)
	}
	user = []byte(strings.Replace(string(user), `"name": "`+cfg.BridgeName+`"`, `"name": "mynet"`, 1))
	if err := os.WriteFile(filepath.Join(cfg.ConfigDir, "mynet.conflist"), user, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll("/var/lib/cni/networks/mynet-" + cfg.BridgeName) })
	m := network.NewManager(cfg)
	ctx := context.Background()
	noop := func(*network.Record) error { return nil }

	id := "none-" + randomID()
	rec, err := m.Setup(ctx, network.Request{AllocID: id, Mode: structs.NetworkModeNone}, network.NamedManager{}, noop)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command("ip", "netns", "exec", network.NamespacePrefix+id, "ip", "-o", "link").CombinedOutput()
	if strings.Count(strings.TrimSpace(string(out)), "\n") != 0 || !strings.Contains(string(out), "lo:") || !strings.Contains(string(out), "UP") {
		t.Fatalf("none mode links: %s", out)
	}
	if err := m.Teardown(ctx, rec, network.NamedManager{}); err != nil || listed(network.NamespacePrefix+id) {
		t.Fatalf("none teardown: %v", err)
	}

	id = "cni-" + randomID()
	rec, err = m.Setup(ctx, network.Request{AllocID: id, Mode: "cni/mynet"}, network.NamedManager{}, noop)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status.Address == "" {
		t.Fatalf("cni/mynet status %+v", rec.Status)
	}
	if err := m.Teardown(ctx, rec, network.NamedManager{}); err != nil || listed(network.NamespacePrefix+id) {
		t.Fatalf("cni teardown: %v", err)
	}
	if _, err := m.Setup(ctx, network.Request{AllocID: "x", Mode: "cni/absent"}, network.NamedManager{}, noop); err == nil ||
		!strings.Contains(err.Error(), `no CNI network "absent"`) {
		t.Fatalf("absent conflist: %v", err)
	}
	if listed(network.NamespacePrefix + "x") {
		t.Fatal("a failed setup left its namespace")
	}
}

// TestSetupReplacesUnrecordedNamespace: a namespace of the allocation's
// name that no record describes (the client crashed right after making
// it) is replaced, not an error.
func TestSetupReplacesUnrecordedNamespace(t *testing.T) {
	networktest.NeedBridge(t, network.Config{})
	cfg := testConfig(t)
	m := network.NewManager(cfg)
	id := "stale-" + randomID()
	path := network.NamespacePath(id)
	if err := network.CreateNamespace(path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = network.DeleteNamespace(path) })
	// A mark in the stale namespace: a veth pair of its own.
	if out, err := exec.Command("ip", "-n", network.NamespacePrefix+id, "link", "add", "stale0", "type", "veth", "peer", "name", "stale1").CombinedOutput(); err != nil {
		t.Fatalf("marking the stale namespace: %s %v", out, err)
	}
	rec, err := m.Setup(context.Background(), network.Request{AllocID: id, Mode: structs.NetworkModeBridge}, network.NamedManager{},
		func(*network.Record) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	defer m.Teardown(context.Background(), rec, network.NamedManager{})
	out, _ := exec.Command("ip", "-n", network.NamespacePrefix+id, "-o", "link").CombinedOutput()
	if strings.Contains(string(out), "stale0") || !strings.Contains(string(out), "eth0") || rec.Status.Address == "" {
		t.Fatalf("links %s, status %+v", out, rec.Status)
	}
}

func TestSetupFailureCleansUp(t *testing.T) {
	networktest.NeedBridge(t, network.Config{})
	cfg := testConfig(t)
	cfg.CNIPath = t.TempDir() // no plugins: ADD fails after the namespace was made
	m := network.NewManager(cfg)
	id := "fail-" + randomID()
	_, err := m.Setup(context.Background(), network.Request{AllocID: id, Mode: structs.NetworkModeBridge}, network.NamedManager{},
		func(*network.Record) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "CNI ADD") {
		t.Fatalf("err = %v", err)
	}
	if listed(network.NamespacePrefix + id) {
		t.Fatal("namespace left after a failed ADD")
	}
}

func randomID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}
