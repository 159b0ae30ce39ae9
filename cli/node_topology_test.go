package cli

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// topoNode is a 2 socket x 4 core machine with SMT (16 logical CPUs, 2
// NUMA nodes): cores 0-1 reserved by the client, 15 offline.
func topoNode() *structs.Node {
	t := &structs.Topology{Nodes: []uint8{0, 1}, Distances: [][]uint16{{10, 21}, {21, 10}}, NodeMemoryMB: []int64{65536, 16384}}
	for id := uint16(0); id < 16; id++ {
		physical := id % 8
		c := structs.Core{ID: id, NodeID: uint8(physical / 4), SocketID: uint8(physical / 4), Siblings: []uint16{physical, physical + 8},
			BaseSpeed: 2100, MaxSpeed: 3500}
		c.Disable = id <= 1 || id == 15
		t.Cores = append(t.Cores, c)
	}
	reservable := []uint16{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}
	return &structs.Node{ID: nodeID, Name: "big1", Status: structs.NodeStatusReady, NodePool: "default",
		NodeResources: &structs.NodeResources{
			Cpu:        structs.NodeCpuResources{CpuShares: 13 * 2100, TotalCpuCores: 13, ReservableCpuCores: reservable},
			Processors: structs.NodeProcessorResources{Topology: t},
		},
		ReservedResources: &structs.NodeReservedResources{Cpu: structs.NodeReservedCpuResources{ReservedCpuCores: []uint16{0, 1}}},
	}
}

func coreAlloc(id, name, status string, tasks map[string][]uint16) *structs.Allocation {
	ar := &structs.AllocatedResources{Tasks: map[string]*structs.AllocatedTaskResources{}}
	for task, cores := range tasks {
		ar.Tasks[task] = &structs.AllocatedTaskResources{Cpu: structs.AllocatedCpuResources{ReservedCores: cores}}
	}
	return &structs.Allocation{ID: id, Name: name, NodeID: nodeID, JobID: strings.Split(name, ".")[0],
		DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: status, AllocatedResources: ar}
}

func TestNodeStatusVerboseTopology(t *testing.T) {
	f := newFakeAPI(t)
	n := topoNode()
	f.node[nodeID] = n
	f.nodes = []*structs.NodeListStub{{ID: nodeID, Name: "big1", Status: structs.NodeStatusReady}}
	nodeAllocs := []*structs.Allocation{
		coreAlloc("c1c1c1c1-0000-4000-8000-000000000001", "db.db[0]", structs.AllocClientStatusRunning, map[string][]uint16{"pg": {3, 2}, "sidecar": {4}}),
		coreAlloc("c2c2c2c2-0000-4000-8000-000000000002", "web.web[0]", structs.AllocClientStatusRunning, map[string][]uint16{"server": {12, 5}}),
		coreAlloc("c3c3c3c3-0000-4000-8000-000000000003", "old.old[0]", structs.AllocClientStatusComplete, map[string][]uint16{"x": {6}}),
	}
	// The fake has no /v1/node/{id}/allocations: serve it in front of it.
	var allocQueries atomic.Int32
	inner := f.srv.Config.Handler
	f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/v1/node/"+nodeID+"/allocations" {
			allocQueries.Add(1)
			_ = json.NewEncoder(w).Encode(nodeAllocs)
			return
		}
		inner.ServeHTTP(w, r)
	})

	code, out, errOut := f.run("node", "status", "-verbose", nodeID)
	if code != 0 || allocQueries.Load() != 1 {
		t.Fatalf("exit %d, %d node allocations queries: %s", code, allocQueries.Load(), errOut)
	}
	for _, want := range []string{
		"CPU Topology\n",
		"Sockets      = 2\nNUMA Nodes   = 2\nCores        = 16 (13 reservable)\nThreads/Core = 2\nBase Speed   = 2100 MHz\nMax Speed    = 3500 MHz\n",
		"NUMA Node  Memory     Cores      Free       Reserved  Disabled  Allocated  Distances\n" +
			"0          65536 MiB  0-3,8-11   8-11       0-1       -         2-3        10 21\n" +
			"1          16384 MiB  4-7,12-15  6-7,13-14  -         15        4-5,12     21 10\n",
		"Allocated Cores\n" +
			"Alloc ID  Name        Task     NUMA Node  Cores\n" +
			"c1c1c1c1  db.db[0]    pg       0          2-3\n" +
			"c1c1c1c1  db.db[0]    sidecar  1          4\n" +
			"c2c2c2c2  web.web[0]  server   1          5,12\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks:\n%s\ngot:\n%s", want, out)
		}
	}
	if strings.Contains(out, "old.old[0]") {
		t.Errorf("a complete allocation's cores are shown:\n%s", out)
	}

	// Without -verbose there is no topology, and no allocations query.
	if code, out, _ := f.run("node", "status", nodeID); code != 0 || strings.Contains(out, "CPU Topology") {
		t.Errorf("non-verbose: exit %d:\n%s", code, out)
	}
	if allocQueries.Load() != 1 {
		t.Error("non-verbose status queried the node's allocations")
	}
}

func TestNodeStatusVerboseWithoutTopology(t *testing.T) {
	f := newFakeAPI(t)
	n := topoNode()
	n.NodeResources.Processors.Topology = nil // a node that predates the fingerprint
	f.node[nodeID] = n
	f.nodes = []*structs.NodeListStub{{ID: nodeID, Name: "big1", Status: structs.NodeStatusReady}}
	code, out, errOut := f.run("node", "status", "-verbose", nodeID)
	if code != 0 || strings.Contains(out, "CPU Topology") || f.requestCount("GET /v1/node/"+nodeID+"/allocations") != 0 {
		t.Errorf("exit %d (%s):\n%s", code, errOut, out)
	}
}
