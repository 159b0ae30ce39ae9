package state

import (
	"slices"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// A node's allocations come from the node_terminal index (the only index by
// node): live and terminal ones, sorted by ID, and none of a node whose ID
// starts with the same characters.
func TestAllocsByNodeFromTheTerminalIndex(t *testing.T) {
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(id, node, desired string) *structs.Allocation {
		return &structs.Allocation{ID: id, NodeID: node, Namespace: "default", JobID: "j", EvalID: "e", DesiredStatus: desired}
	}
	allocs := []*structs.Allocation{
		mk("c", "n1", structs.AllocDesiredStatusRun), mk("a", "n1", structs.AllocDesiredStatusStop),
		mk("b", "n1", structs.AllocDesiredStatusRun), mk("d", "n10", structs.AllocDesiredStatusRun),
	}
	if err = s.UpsertAllocs(10, allocs); err != nil {
		t.Fatal(err)
	}
	ids := func(as []*structs.Allocation) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.ID)
		}
		return out
	}
	got, err := s.AllocsByNode(nil, "n1")
	if err != nil || !slices.Equal(ids(got), []string{"a", "b", "c"}) {
		t.Fatalf("n1: %v %v, want a b c", ids(got), err)
	}
	if got, _ := s.AllocsByNode(nil, "n10"); !slices.Equal(ids(got), []string{"d"}) {
		t.Fatalf("n10: %v", ids(got))
	}
	if got, _ := s.AllocsByNode(nil, "n"); len(got) != 0 {
		t.Fatalf("n: %v", ids(got))
	}
	if got, _ := s.AllocsByNodeTerminal(nil, "n1", false); !slices.Equal(ids(got), []string{"b", "c"}) {
		t.Fatalf("n1 live: %v", ids(got))
	}
	if _, ok := allocsSchema().Indexes["node"]; ok {
		t.Fatal("a second index by node is back")
	}
}
