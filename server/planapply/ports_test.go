package planapply_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/nomadish/nomadish/server/planapply/planapplytest"
	"github.com/nomadish/nomadish/structs"
)

// portAlloc is a small alloc holding static port 8080 on node.
func portAlloc(id, node string) *structs.Allocation {
	a := planapplytest.Alloc(id, node, 100, 100)
	a.AllocatedResources.Shared.Ports = []structs.AllocatedPortMapping{{Label: "http", Value: 8080, HostIP: "10.0.0.1"}}
	return a
}

// Two workers both believed port 8080 free on n1 (plenty of CPU and memory):
// the applier commits one plan and rejects the other's node, so no two live
// allocs ever hold the same host port.
func TestConcurrentPlansSameStaticPort(t *testing.T) {
	store := planapplytest.NewStore()
	store.UpsertNode(planapplytest.Node("n1", 8000, 8192))
	a := start(t, store)

	var wg sync.WaitGroup
	results := make([]*structs.PlanResult, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() {
			p := newPlan(fmt.Sprintf("e%d", i), 50)
			p.AppendAlloc(portAlloc(fmt.Sprintf("a%d", i), "n1"))
			results[i], errs[i] = a.Submit(context.Background(), p)
		})
	}
	wg.Wait()
	accepted := 0
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("plan %d: %v", i, errs[i])
		}
		if len(r.NodeAllocation["n1"]) == 1 {
			accepted++
		} else if r.RefreshIndex == 0 || len(r.RejectedNodes) != 1 {
			t.Fatalf("rejected plan %d: %+v", i, r)
		}
	}
	if accepted != 1 {
		t.Fatalf("accepted %d plans, want 1", accepted)
	}
	snap, _ := store.Snapshot()
	allocs, _ := snap.AllocsByNode("n1")
	if len(allocs) != 1 {
		t.Fatalf("n1 holds %d allocs, want 1", len(allocs))
	}

	// A plan that stops the holder frees the port for its replacement.
	p := newPlan("e3", 50)
	old := allocs[0].Copy()
	old.DesiredStatus = structs.AllocDesiredStatusStop
	p.NodeUpdate["n1"] = []*structs.Allocation{old}
	p.AppendAlloc(portAlloc("a3", "n1"))
	r, err := a.Submit(context.Background(), p)
	if err != nil || len(r.NodeAllocation["n1"]) != 1 || len(r.RejectedNodes) != 0 {
		t.Fatalf("stop and replace: %+v, %v", r, err)
	}
}
