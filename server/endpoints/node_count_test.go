package endpoints

import (
	"fmt"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// TestNodeCountFollowsTheNodesTable: the cached count changes with every
// node write and with a replaced store, and is right each time.
func TestNodeCountFollowsTheNodesTable(t *testing.T) {
	st, err := state.New(hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	var c nodeCount
	if n, err := c.get(st); err != nil || n != 0 {
		t.Fatalf("empty store: %d, %v", n, err)
	}
	for i := 1; i <= 3; i++ {
		node := &structs.Node{ID: fmt.Sprintf("00000000-0000-0000-0000-00000000000%d", i), Name: "n", Datacenter: "dc1",
			Status: structs.NodeStatusReady}
		if err := st.UpsertNode(uint64(10+i), node); err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second read is the cached one
			if n, err := c.get(st); err != nil || n != i {
				t.Fatalf("after %d nodes: %d, %v", i, n, err)
			}
		}
	}
	other, err := state.New(hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	if err := other.UpsertNode(13, &structs.Node{ID: "00000000-0000-0000-0000-000000000009", Name: "n", Datacenter: "dc1"}); err != nil {
		t.Fatal(err)
	}
	if n, err := c.get(other); err != nil || n != 1 {
		t.Fatalf("a restored store at the same index: %d, %v; want 1", n, err)
	}
}
