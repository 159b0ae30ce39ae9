package scheduler

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// cachedState is a State stub that is a ReadyCacher (only Nodes and
// ReadyCache are read by readyNodes).
type cachedState struct {
	State
	cache   *ReadyCache
	version uint64
}

func (s cachedState) ReadyCache() (*ReadyCache, uint64) { return s.cache, s.version }

func readyTestNodes(r *rand.Rand, n int) []*structs.Node {
	var out []*structs.Node
	for i := range n {
		node := &structs.Node{ID: fmt.Sprintf("n%04d", i), Datacenter: fmt.Sprintf("dc%d", r.IntN(3)),
			Status: structs.NodeStatusReady, SchedulingEligibility: structs.NodeSchedulingEligible}
		switch r.IntN(6) {
		case 0:
			node.Status = structs.NodeStatusDown
		case 1:
			node.SchedulingEligibility = structs.NodeSchedulingIneligible
		case 2:
			node.NodePool = "gpu"
		}
		out = append(out, node)
	}
	return out
}

func nodeIDs(ns []*structs.Node) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.ID)
	}
	return out
}

// TestReadyCacheMatchesUncached checks that the cached ready lists are the
// uncached ones, per pool and datacenters, across node-list versions, and
// that shuffling a returned list does not touch the cache.
func TestReadyCacheMatchesUncached(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cache := &ReadyCache{}
	asks := []struct {
		pool string
		dcs  []string
	}{{"default", []string{"dc1"}}, {"all", []string{"*"}}, {"gpu", []string{"dc0", "dc2"}}, {"default", []string{"dc*"}}}
	for version := uint64(1); version <= 4; version++ {
		nodes := readyTestNodes(r, 200)
		for round := range 2 { // the second round reads the cache
			for _, a := range asks {
				want, wantDC := readyNodes(nil, nodes, a.pool, a.dcs)
				got, gotDC := readyNodes(cachedState{cache: cache, version: version}, nodes, a.pool, a.dcs)
				if !slices.Equal(nodeIDs(got), nodeIDs(want)) || fmt.Sprint(gotDC) != fmt.Sprint(wantDC) {
					t.Fatalf("version %d round %d %v: cached %v %v, uncached %v %v", version, round, a,
						nodeIDs(got), gotDC, nodeIDs(want), wantDC)
				}
				shuffleSorted(got, "eval", version) // the caller's copy
			}
		}
	}
	// An older version is computed, not cached over the newer one.
	old := readyTestNodes(r, 10)
	got, _ := readyNodes(cachedState{cache: cache, version: 2}, old, "all", []string{"*"})
	want, _ := readyNodes(nil, old, "all", []string{"*"})
	if !slices.Equal(nodeIDs(got), nodeIDs(want)) || cache.version != 4 {
		t.Fatalf("old version: got %v want %v, cache at %d", nodeIDs(got), nodeIDs(want), cache.version)
	}
}
