package planapply_test

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"slices"
	"testing"

	"github.com/nomadish/nomadish/server/planapply"
	"github.com/nomadish/nomadish/server/planapply/planapplytest"
	"github.com/nomadish/nomadish/structs"
	"pgregory.net/rapid"
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

// hugeInt64 draws amounts near int64's edges as often as ordinary ones.
func hugeInt64(rt *rapid.T, label string) int64 {
	return rapid.OneOf(rapid.Int64Range(-10, 3000),
		rapid.SampledFrom([]int64{math.MaxInt64, math.MaxInt64 / 2, math.MaxInt64/2 + 1, math.MinInt64, -math.MaxInt64, 1 << 62}),
	).Draw(rt, label)
}

// TestPropertyHugePlansNeverOverCommit submits random plans whose
// allocations hold ordinary, huge and negative amounts, and checks after
// each, with exact (big.Int) sums independent of AllocsFit, that no node
// holds more cpu or memory than it has.
func TestPropertyHugePlansNeverOverCommit(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		store := planapplytest.NewStore()
		nodes := []string{"n0", "n1"}
		caps := map[string][2]int64{}
		for _, id := range nodes {
			c := [2]int64{rapid.Int64Range(0, 4000).Draw(rt, "cpu"), rapid.Int64Range(0, 4096).Draw(rt, "mem")}
			caps[id] = c
			store.UpsertNode(planapplytest.Node(id, c[0], c[1]))
		}
		a := planapply.New(planapply.Config{State: store, Commit: store})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { a.Run(ctx); close(done) }()
		defer func() { cancel(); <-done }()
		for i := range rapid.IntRange(1, 10).Draw(rt, "plans") {
			p := newPlan(fmt.Sprintf("e%d", i), 50)
			for j := range rapid.IntRange(1, 4).Draw(rt, "places") {
				node := rapid.SampledFrom(nodes).Draw(rt, "node")
				p.AppendAlloc(planapplytest.Alloc(fmt.Sprintf("a%d-%d", i, j), node, hugeInt64(rt, "acpu"), hugeInt64(rt, "amem")))
			}
			if _, err := a.Submit(context.Background(), p); err != nil {
				rt.Fatal(err)
			}
			snap, _ := store.Snapshot()
			for _, id := range nodes {
				allocs, _ := snap.AllocsByNode(id)
				cpu, mem := new(big.Int), new(big.Int)
				for _, al := range allocs {
					for _, tr := range al.AllocatedResources.Tasks {
						cpu.Add(cpu, big.NewInt(max(tr.Cpu.CpuShares, 0)))
						mem.Add(mem, big.NewInt(max(tr.Memory.MemoryMB, 0)))
					}
				}
				if cpu.Cmp(big.NewInt(caps[id][0])) > 0 || mem.Cmp(big.NewInt(caps[id][1])) > 0 {
					rt.Fatalf("node %s over-committed: cpu %v of %d, memory %v of %d", id, cpu, caps[id][0], mem, caps[id][1])
				}
			}
		}
	})
}
