package scheduler_test

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/nomadish/nomadish/scheduler/schedulertest"
	"github.com/nomadish/nomadish/structs"
)

// genPortCluster is genCluster with scarce ports instead of scarce CPU:
// nodes with a few dynamic ports, jobs asking for static ports from a small
// set and a few dynamic ones.
func genPortCluster(t *rapid.T) *cluster {
	c := &cluster{store: schedulertest.NewStore(), last: map[string]*structs.Evaluation{}}
	for i := range rapid.IntRange(1, 5).Draw(t, "jobs") {
		typ := rapid.SampledFrom([]string{structs.JobTypeService, structs.JobTypeBatch}).Draw(t, "type")
		j := schedulertest.Job(fmt.Sprintf("job%d", i), typ, 1, 100, 64)
		j.TaskGroups[0].Count = rapid.IntRange(0, 8).Draw(t, "count")
		nw := &structs.NetworkResource{Mode: "host"}
		if rapid.Bool().Draw(t, "static") {
			nw.ReservedPorts = []structs.Port{{Label: "s", Value: rapid.SampledFrom([]int{8080, 8081, 20001}).Draw(t, "port")}}
		}
		for k := range rapid.IntRange(0, 3).Draw(t, "dynamic") {
			nw.DynamicPorts = append(nw.DynamicPorts, structs.Port{Label: fmt.Sprintf("d%d", k)})
		}
		j.TaskGroups[0].Networks = []*structs.NetworkResource{nw}
		c.jobs = append(c.jobs, j)
	}
	for i := range rapid.IntRange(1, 6).Draw(t, "nodes") {
		n := schedulertest.Node(fmt.Sprintf("n%02d", i), "dc1", 100000, 100000)
		n.NodeResources.MinDynamicPort = 20000
		n.NodeResources.MaxDynamicPort = 20000 + rapid.IntRange(0, 8).Draw(t, "range")
		if rapid.Bool().Draw(t, "reserved") {
			n.ReservedResources = &structs.NodeReservedResources{Networks: structs.NodeReservedNetworkResources{ReservedHostPorts: "8080,20002"}}
		}
		c.store.UpsertNode(n)
	}
	for _, j := range c.jobs {
		c.store.UpsertJob(j)
		c.eval(t, j, structs.EvalTriggerJobRegister)
	}
	return c
}

// TestPropertyPortsNeverCollide: whatever the jobs and nodes, no two live
// allocs of a node hold one host port, none holds a reserved one, the
// scheduler's port check agrees with the plan applier's (no plan rejected),
// and placed + queued = count, through rescales and node failures.
func TestPropertyPortsNeverCollide(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genPortCluster(t)
		c.processAll(t)
		c.check(t)
		checkPorts(t, c)
		for range rapid.IntRange(0, 3).Draw(t, "rounds") {
			if rapid.Bool().Draw(t, "scale") {
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
			checkPorts(t, c)
		}
	})
}

// checkPorts: every live alloc holds one port per port its group asks for,
// static ones at their value, dynamic ones in the node's range.
func checkPorts(t *rapid.T, c *cluster) {
	for _, a := range c.store.Allocs() {
		if a.TerminalStatus() {
			continue
		}
		nw := a.Job.TaskGroups[0].Networks[0]
		ports := a.AllocatedResources.Shared.Ports
		if len(ports) != len(nw.ReservedPorts)+len(nw.DynamicPorts) {
			t.Fatalf("%s holds ports %+v for %+v", a.Name, ports, nw)
		}
		n, _ := c.store.NodeByID(a.NodeID)
		lo, hi := n.DynamicPortRange()
		for i, p := range ports {
			if i < len(nw.ReservedPorts) && p.Value != nw.ReservedPorts[i].Value ||
				i >= len(nw.ReservedPorts) && (p.Value < lo || p.Value > hi) {
				t.Fatalf("%s: port %+v (range %d-%d, ask %+v)", a.Name, p, lo, hi, nw)
			}
		}
	}
}
