package taskrunner

import (
	"slices"
	"testing"

	"github.com/nomadish/nomadish/client/allocdir"
	"github.com/nomadish/nomadish/structs"
)

// The reserved cores of the alloc reach the driver with their NUMA nodes
// (from the node's topology) and NOMAD_CPU_CORES.
func TestTaskConfigCoresAndNUMANodes(t *testing.T) {
	task := &structs.Task{Name: "t", Resources: &structs.Resources{Cores: 3, MemoryMB: 64}}
	alloc := &structs.Allocation{ID: "a1", JobID: "j", TaskGroup: "g", AllocatedResources: &structs.AllocatedResources{
		Tasks: map[string]*structs.AllocatedTaskResources{"t": {
			Cpu: structs.AllocatedCpuResources{CpuShares: 6000, ReservedCores: []uint16{1, 4, 5}}}}}}
	topo := &structs.Topology{Nodes: []uint8{0, 1}}
	for i := uint16(0); i < 8; i++ {
		topo.Cores = append(topo.Cores, structs.Core{ID: i, NodeID: uint8(i / 4)})
	}
	node := &structs.Node{NodeResources: &structs.NodeResources{Processors: structs.NodeProcessorResources{Topology: topo}}}

	res := nodeTaskResources(alloc, task, node)
	if !slices.Equal(res.Cores, []uint16{1, 4, 5}) || !slices.Equal(res.NUMANodes, []uint16{0, 1}) || res.CPUShares != 6000 {
		t.Fatalf("resources %+v, want cores 1,4,5 on NUMA nodes 0,1", res)
	}
	if res := nodeTaskResources(alloc, task, nil); len(res.NUMANodes) != 0 || len(res.Cores) != 3 {
		t.Fatalf("without a node: %+v", res)
	}
	env := BuildEnv(alloc, task, allocdir.New(t.TempDir(), "a1"), "global", "dc1", nil)
	if env["NOMAD_CPU_CORES"] != "1,4,5" {
		t.Fatalf("NOMAD_CPU_CORES = %q", env["NOMAD_CPU_CORES"])
	}
}
