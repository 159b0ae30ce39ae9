package planapply_test

import (
	"context"
	"testing"

	"github.com/nomadish/nomadish/server/planapply/planapplytest"
	"github.com/nomadish/nomadish/structs"
)

// coreAlloc is a small alloc holding the given cores on node.
func coreAlloc(id, node string, cores ...uint16) *structs.Allocation {
	a := planapplytest.Alloc(id, node, 100, 100)
	for _, t := range a.AllocatedResources.Tasks {
		t.Cpu.ReservedCores = cores
		break
	}
	return a
}

// coreNode is a node with 8 reservable cores, core 0 reserved by the
// operator.
func coreNode(id string) *structs.Node {
	n := planapplytest.Node(id, 8000, 8192)
	n.NodeResources.Cpu.TotalCpuCores = 8
	n.NodeResources.Cpu.ReservableCpuCores = []uint16{0, 1, 2, 3, 4, 5, 6, 7}
	n.ReservedResources = &structs.NodeReservedResources{Cpu: structs.NodeReservedCpuResources{ReservedCpuCores: []uint16{0}}}
	return n
}

// The optimistic-concurrency re-check covers cores: a plan whose cores
// collide with cores held on the node, with each other, or use a reserved
// or absent core is rejected on that node; disjoint cores commit.
func TestPlanCoresCollide(t *testing.T) {
	store := planapplytest.NewStore()
	store.UpsertNode(coreNode("n1"))
	a := start(t, store)
	submit := func(eval string, allocs ...*structs.Allocation) *structs.PlanResult {
		t.Helper()
		p := newPlan(eval, 50)
		for _, al := range allocs {
			p.AppendAlloc(al)
		}
		r, err := a.Submit(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: %v", eval, err)
		}
		return r
	}
	if r := submit("e1", coreAlloc("a1", "n1", 1, 2)); len(r.NodeAllocation["n1"]) != 1 {
		t.Fatalf("first plan rejected: %+v", r)
	}
	for _, tc := range []struct {
		name   string
		allocs []*structs.Allocation
	}{
		{"held on the node", []*structs.Allocation{coreAlloc("a2", "n1", 2, 3)}},
		{"with each other", []*structs.Allocation{coreAlloc("a3", "n1", 4, 5), coreAlloc("a4", "n1", 5, 6)}},
		{"reserved core", []*structs.Allocation{coreAlloc("a5", "n1", 0)}},
		{"absent core", []*structs.Allocation{coreAlloc("a6", "n1", 9)}},
	} {
		r := submit(tc.name, tc.allocs...)
		if len(r.NodeAllocation["n1"]) != 0 || len(r.RejectedNodes) != 1 || r.RefreshIndex == 0 {
			t.Errorf("%s: not rejected: %+v", tc.name, r)
		}
	}
	if r := submit("e9", coreAlloc("a7", "n1", 3, 4), coreAlloc("a8", "n1", 5, 6, 7)); len(r.NodeAllocation["n1"]) != 2 {
		t.Fatalf("disjoint cores rejected: %+v", r)
	}
	snap, _ := store.Snapshot()
	allocs, _ := snap.AllocsByNode("n1")
	node, _ := snap.NodeByID("n1")
	if fit, dim, _ := structs.AllocsFit(node, allocs); !fit || len(allocs) != 3 {
		t.Fatalf("n1 holds %d allocs, fit=%v %s", len(allocs), fit, dim)
	}
}
