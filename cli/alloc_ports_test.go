package cli

import (
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func TestAllocStatusAddresses(t *testing.T) {
	f := newFakeAPI(t)
	a := allocFixture(f, "t")
	a.AllocatedResources.Shared.Networks = []*structs.NetworkResource{{Mode: "host",
		ReservedPorts: []structs.Port{{Label: "db", Value: 8080, To: 80}}, DynamicPorts: []structs.Port{{Label: "http", Value: 23456}}}}
	a.AllocatedResources.Shared.Ports = []structs.AllocatedPortMapping{
		{Label: "db", Value: 8080, To: 80, HostIP: "10.0.0.7"}, {Label: "http", Value: 23456, HostIP: "10.0.0.7"}}
	code, out, errOut := f.run("alloc", "status", "a1a1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"Allocation Addresses (mode = \"host\"):\nLabel  Dynamic  Address\n",
		"*db    no       10.0.0.7:8080 -> 80\n",
		"*http  yes      10.0.0.7:23456\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// A bridge-mode group's allocation shows its mode (from the job's group) and
// the address of its namespace.
func TestAllocStatusBridgeAddresses(t *testing.T) {
	f := newFakeAPI(t)
	a := allocFixture(f, "t")
	a.Job = &structs.Job{ID: a.JobID, TaskGroups: []*structs.TaskGroup{{Name: a.TaskGroup,
		Networks: []*structs.NetworkResource{{Mode: "bridge", DynamicPorts: []structs.Port{{Label: "http", To: 8080}}}}}}}
	a.AllocatedResources.Shared.Networks = nil
	a.AllocatedResources.Shared.Ports = []structs.AllocatedPortMapping{{Label: "http", Value: 23456, To: 8080, HostIP: "10.0.0.7"}}
	a.NetworkStatus = &structs.AllocNetworkStatus{InterfaceName: "eth0", Address: "172.26.64.12"}
	code, out, errOut := f.run("alloc", "status", "a1a1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"Allocation Addresses (mode = \"bridge\"):\n",
		"*http  yes      10.0.0.7:23456 -> 8080\n",
		"Allocation Network: 172.26.64.12 (eth0)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestNodeStatusVerboseNetwork(t *testing.T) {
	f := newFakeAPI(t)
	n := &structs.Node{ID: nodeID, Name: "dev", Datacenter: "dc1", NodePool: "default", Status: "ready",
		NodeResources: &structs.NodeResources{Networks: []*structs.NetworkResource{{Mode: "host", IP: "10.0.0.7"}},
			MinDynamicPort: 25000, MaxDynamicPort: 25100},
		ReservedResources: &structs.NodeReservedResources{Networks: structs.NodeReservedNetworkResources{ReservedHostPorts: "22,80"}}}
	f.node[nodeID] = n
	f.nodes = []*structs.NodeListStub{n.Stub()}
	code, out, _ := f.run("node", "status", "-verbose", "n1")
	want := "Node Network\nIP        Dynamic Ports  Reserved Ports\n10.0.0.7  25000-25100    22,80\n"
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("exit %d, output lacks %q:\n%s", code, want, out)
	}
}
