package planapply_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/nomadish/nomadish/server/planapply"
	"github.com/nomadish/nomadish/server/planapply/planapplytest"
	"github.com/nomadish/nomadish/structs"
	"pgregory.net/rapid"
)

// TestPropertyNoNodeOverCommitted submits random plans (placements, stops of
// existing allocs, on existing, missing and down nodes) and checks after
// each that no node is over-committed and the result agrees with the store.
func TestPropertyNoNodeOverCommitted(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		store := planapplytest.NewStore()
		store.KeepSums = rapid.Bool().Draw(rt, "sums") // the server's store keeps them: fitsBySums
		nodes := []string{"n0", "n1", "n2", "gone"}
		for _, id := range nodes[:3] {
			n := planapplytest.Node(id, int64(rapid.IntRange(0, 2000).Draw(rt, "cpu")), 1000)
			if rapid.IntRange(0, 5).Draw(rt, "down") == 0 {
				n.Status = structs.NodeStatusDown
			}
			store.UpsertNode(n)
		}
		a := planapply.New(planapply.Config{State: store, Commit: store})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { a.Run(ctx); close(done) }()
		defer func() { cancel(); <-done }()

		var live []*structs.Allocation
		for i := range rapid.IntRange(1, 15).Draw(rt, "plans") {
			p := newPlan(fmt.Sprintf("e%d", i), 50)
			for j := range rapid.IntRange(0, 4).Draw(rt, "places") {
				node := rapid.SampledFrom(nodes).Draw(rt, "node")
				cpu := int64(rapid.IntRange(1, 800).Draw(rt, "acpu"))
				p.AppendAlloc(planapplytest.Alloc(fmt.Sprintf("a%d-%d", i, j), node, cpu, 10))
			}
			if len(live) > 0 && rapid.Bool().Draw(rt, "stop") {
				p.AppendStoppedAlloc(rapid.SampledFrom(live).Draw(rt, "victim"), "stop", "")
			}
			res, err := a.Submit(context.Background(), p)
			if err != nil {
				rt.Fatal(err)
			}
			for _, as := range res.NodeAllocation {
				live = append(live, as...)
			}
			if (res.RefreshIndex != 0) != (len(res.RejectedNodes) != 0) {
				rt.Fatalf("refresh index %d with rejected %v", res.RefreshIndex, res.RejectedNodes)
			}
			checkStore(rt, store, nodes)
		}
	})
}

func checkStore(rt *rapid.T, store *planapplytest.Store, nodes []string) {
	snap, _ := store.Snapshot()
	for _, id := range nodes {
		n, _ := snap.NodeByID(id)
		allocs, _ := snap.AllocsByNode(id)
		live := 0
		for _, a := range allocs {
			if !a.TerminalStatus() {
				live++
			}
		}
		if n == nil {
			if live > 0 {
				rt.Fatalf("%d allocs placed on missing node %s", live, id)
			}
			continue
		}
		if fit, dim, used := structs.AllocsFit(n, allocs); !fit {
			rt.Fatalf("node %s over-committed on %s: %+v of %+v", id, dim, used, n.Comparable())
		}
	}
}
