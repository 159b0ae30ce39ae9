package planapply_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/nomadish/nomadish/server/planapply/planapplytest"
	"github.com/nomadish/nomadish/structs"
)

// TestHugePlansRefused: plans whose allocations hold huge amounts (2^63-1
// MHz, sums that wrap int64, negative amounts next to big ones) are refused
// on the node and commit nothing; afterwards a plan that fits the node still
// commits, and nothing ever over-commits the 24 GB node.
func TestHugePlansRefused(t *testing.T) {
	store := planapplytest.NewStore()
	store.UpsertNode(planapplytest.Node("n1", 4000, 24*1024))
	store.UpsertAlloc(planapplytest.Alloc("small", "n1", 100, 256))
	a := start(t, store)
	for i, allocs := range [][]*structs.Allocation{
		{planapplytest.Alloc("max-cpu", "n1", math.MaxInt64, 256)},
		{planapplytest.Alloc("max-mem", "n1", 100, math.MaxInt64)},
		{planapplytest.Alloc("half1", "n1", math.MaxInt64/2+1, 1), planapplytest.Alloc("half2", "n1", math.MaxInt64/2+1, 1)},
		{planapplytest.Alloc("neg", "n1", -math.MaxInt64, -math.MaxInt64), planapplytest.Alloc("big", "n1", 8000, 60*1024)},
	} {
		p := newPlan(fmt.Sprintf("huge%d", i), 50)
		for _, al := range allocs {
			p.AppendAlloc(al)
		}
		res, err := a.Submit(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.RejectedNodes, []string{"n1"}) || len(res.NodeAllocation) != 0 || res.RefreshIndex == 0 {
			t.Fatalf("plan %d: %+v", i, res)
		}
	}
	if n := len(store.Commits()); n != 0 {
		t.Fatalf("%d commits of refused plans", n)
	}
	for i := range 30 { // 30 GB asked, 24 GB on the node: only what fits commits
		p := newPlan(fmt.Sprintf("gb%d", i), 50)
		p.AppendAlloc(planapplytest.Alloc(fmt.Sprintf("gb%d", i), "n1", 10, 1024))
		if _, err := a.Submit(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	snap, _ := store.Snapshot()
	node, _ := snap.NodeByID("n1")
	allocs, _ := snap.AllocsByNode("n1")
	if fit, dim, used := structs.AllocsFit(node, allocs); !fit || used.MemoryMB > 24*1024 || len(allocs) != 24 {
		t.Fatalf("node holds %d allocs, fit %v (%s), used %+v", len(allocs), fit, dim, used)
	}
}
