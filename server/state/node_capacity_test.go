package state

import (
	"slices"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// TestReregisteringAnUnchangedNodeIsNoCapacityChange: blocked evals wake
// when a ready node appears, comes back, or changes what placement reads;
// not when a client re-registers the same node (they used to be re-run on
// every re-registration, a busy loop for a huge unplaceable job).
func TestReregisteringAnUnchangedNodeIsNoCapacityChange(t *testing.T) {
	s := testStore(t)
	rec := &recorder{}
	s.SetNotifier(rec)
	node := func() *structs.Node {
		n := &structs.Node{ID: "n1", SecretID: "s", Name: "n1", Datacenter: "dc1", Status: structs.NodeStatusReady,
			Attributes: map[string]string{"kernel.name": "linux"},
			NodeResources: &structs.NodeResources{Cpu: structs.NodeCpuResources{CpuShares: 4000},
				Memory: structs.NodeMemoryResources{MemoryMB: 8192}}}
		n.ComputeClass()
		return n
	}
	steps := []struct {
		index uint64
		write func(index uint64) error
	}{
		{1, func(i uint64) error { return s.UpsertNode(i, node()) }},                                                  // new: capacity
		{2, func(i uint64) error { return s.UpsertNode(i, node()) }},                                                  // unchanged: none
		{3, func(i uint64) error { return s.UpsertNode(i, node()) }},                                                  // unchanged: none
		{4, func(i uint64) error { n := node(); n.NodeResources.Memory.MemoryMB = 16384; return s.UpsertNode(i, n) }}, // more memory
		{5, func(i uint64) error { return s.UpdateNodeStatus(i, "n1", structs.NodeStatusDown, 0) }},                   // down: none
		{6, func(i uint64) error {
			n := node()
			n.NodeResources.Memory.MemoryMB = 16384
			return s.UpsertNode(i, n)
		}}, // ready again: capacity
		{7, func(i uint64) error {
			n := node()
			n.NodeResources.Memory.MemoryMB = 16384
			n.Attributes["unique.network.ip-address"] = "10.0.0.9"
			n.ComputeClass()
			return s.UpsertNode(i, n)
		}}, // a unique attribute a constraint may read: capacity
	}
	for _, st := range steps {
		if err := st.write(st.index); err != nil {
			t.Fatal(err)
		}
	}
	if want := []uint64{1, 4, 6, 7}; !slices.Equal(rec.capacity, want) {
		t.Fatalf("capacity changes at %v, want %v", rec.capacity, want)
	}
}
