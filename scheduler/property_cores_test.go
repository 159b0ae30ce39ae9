package scheduler_test

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/nomadish/nomadish/scheduler/schedulertest"
	"github.com/nomadish/nomadish/structs"
)

// genCoreCluster is genCluster with scarce cores: nodes of 2x8, 4x4 or 2x8
// with SMT siblings (some with reserved cores, some without a topology),
// jobs asking 1-8 cores with a random NUMA affinity, or cpu MHz.
func genCoreCluster(t *rapid.T) *cluster {
	c := &cluster{store: schedulertest.NewStore(), last: map[string]*structs.Evaluation{}}
	for i := range rapid.IntRange(1, 6).Draw(t, "jobs") {
		typ := rapid.SampledFrom([]string{structs.JobTypeService, structs.JobTypeBatch}).Draw(t, "type")
		j := schedulertest.Job(fmt.Sprintf("job%d", i), typ, rapid.IntRange(0, 8).Draw(t, "count"), 500, 64)
		if rapid.IntRange(0, 3).Draw(t, "cpu_only") > 0 {
			r := j.TaskGroups[0].Tasks[0].Resources
			r.CPU, r.Cores = 0, rapid.SampledFrom([]int{1, 2, 3, 4, 8}).Draw(t, "cores")
			r.NUMA = &structs.NUMA{Affinity: rapid.SampledFrom([]string{"none", "prefer", "require"}).Draw(t, "affinity")}
		}
		c.jobs = append(c.jobs, j)
	}
	for i := range rapid.IntRange(1, 5).Draw(t, "nodes") {
		n := schedulertest.Node(fmt.Sprintf("n%02d", i), "dc1", 16000, 100000)
		switch rapid.IntRange(0, 3).Draw(t, "shape") {
		case 0:
			n.NodeResources.Processors.Topology = testTopology(2, 8, false)
		case 1:
			n.NodeResources.Processors.Topology = testTopology(4, 4, false)
		case 2:
			n.NodeResources.Processors.Topology = testTopology(2, 8, true)
		default: // no topology: the reservable cores are NUMA node 0
			n.NodeResources.Cpu.ReservableCpuCores = []uint16{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
		}
		n.NodeResources.Cpu.TotalCpuCores = 16
		if rapid.Bool().Draw(t, "reserved") {
			n.ReservedResources = &structs.NodeReservedResources{Cpu: structs.NodeReservedCpuResources{ReservedCpuCores: []uint16{0, 9}}}
		}
		c.store.UpsertNode(n)
	}
	for _, j := range c.jobs {
		c.store.UpsertJob(j)
		c.eval(t, j, structs.EvalTriggerJobRegister)
	}
	return c
}

// testTopology is numa NUMA nodes x per cores; with smt, core i and
// i+total/2 are siblings.
func testTopology(numa, per int, smt bool) *structs.Topology {
	t := &structs.Topology{}
	total := numa * per
	for i := range numa {
		t.Nodes = append(t.Nodes, uint8(i))
	}
	for id := range total {
		c := structs.Core{ID: uint16(id), BaseSpeed: 1000, NodeID: uint8(id / per)}
		if smt {
			phys := id % (total / 2)
			c.Siblings = []uint16{uint16(phys), uint16(phys + total/2)}
			c.NodeID = uint8(phys / (per / 2))
		}
		t.Cores = append(t.Cores, c)
	}
	return t
}

// TestPropertyCoresNeverHeldTwice: whatever the jobs and nodes, after many
// placements, rescales and node failures no core is held twice on a node
// nor is a reserved one held (c.check runs structs.AllocsFit, whose cores
// check the plan applier shares, and fails on any rejected plan); each alloc
// holds exactly its ask, on one NUMA node when it requires it, and counts
// cores x 1000 MHz.
func TestPropertyCoresNeverHeldTwice(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genCoreCluster(t)
		c.processAll(t)
		c.check(t)
		checkCores(t, c)
		for range rapid.IntRange(0, 4).Draw(t, "rounds") {
			if rapid.IntRange(0, 2).Draw(t, "what") > 0 {
				j := rapid.SampledFrom(c.jobs).Draw(t, "job").Copy()
				j.TaskGroups[0].Count = rapid.IntRange(0, 10).Draw(t, "new_count")
				c.store.UpsertJob(j)
				c.replaceJob(j)
				c.eval(t, j, structs.EvalTriggerJobRegister)
			} else {
				nodes, _ := c.store.Nodes()
				n := *rapid.SampledFrom(nodes).Draw(t, "down")
				n.Status = structs.NodeStatusDown
				c.store.UpsertNode(&n)
				for _, j := range c.jobs {
					c.eval(t, j, structs.EvalTriggerNodeUpdate)
				}
			}
			c.processAll(t)
			c.check(t)
			checkCores(t, c)
		}
	})
}

// checkCores checks each live alloc's cores against its ask.
func checkCores(t *rapid.T, c *cluster) {
	for _, a := range c.store.Allocs() {
		if a.TerminalStatus() {
			continue
		}
		r := a.Job.TaskGroups[0].Tasks[0].Resources
		got := a.AllocatedResources.Tasks["task"].Cpu
		if len(got.ReservedCores) != r.Cores {
			t.Fatalf("%s holds cores %v for cores=%d", a.Name, got.ReservedCores, r.Cores)
		}
		if r.Cores == 0 {
			continue
		}
		if got.CpuShares != int64(r.Cores)*1000 {
			t.Fatalf("%s: cpu %d for %d cores", a.Name, got.CpuShares, r.Cores)
		}
		n, _ := c.store.NodeByID(a.NodeID)
		numa := map[uint8]bool{}
		for _, id := range got.ReservedCores {
			for _, core := range n.CoreTopology().Cores {
				if core.ID == id {
					numa[core.NodeID] = true
				}
			}
		}
		if r.NUMA.Affinity == structs.NUMAAffinityRequire && len(numa) != 1 {
			t.Fatalf("%s requires one NUMA node, holds %v on %d", a.Name, got.ReservedCores, len(numa))
		}
	}
}
