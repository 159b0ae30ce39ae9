package planapply

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// listSnap is a Snapshot over a fixed set of allocations; sumSnap adds the
// per-node sums (UsageSnapshot) over the same data.
type listSnap struct {
	nodes  map[string]*structs.Node
	allocs []*structs.Allocation
}

func (s *listSnap) NodeByID(id string) (*structs.Node, error) { return s.nodes[id], nil }
func (s *listSnap) AllocsByNode(id string) ([]*structs.Allocation, error) {
	var out []*structs.Allocation
	for _, a := range s.allocs {
		if a.NodeID == id {
			out = append(out, a)
		}
	}
	return out, nil
}
func (s *listSnap) LiveAllocsByNode(id string) ([]*structs.Allocation, error) {
	var out []*structs.Allocation
	for _, a := range s.allocs {
		if a.NodeID == id && !a.TerminalStatus() {
			out = append(out, a)
		}
	}
	return out, nil
}
func (s *listSnap) LatestIndex() (uint64, error) { return 1, nil }

type sumSnap struct{ *listSnap }

func (s sumSnap) NodeLiveUsage(id string) (structs.ComparableResources, int, error) {
	var used structs.ComparableResources
	live, _ := s.LiveAllocsByNode(id)
	for _, a := range live {
		used.Add(a.AllocatedResources.Comparable())
	}
	return used, len(live), nil
}

func (s sumSnap) AllocByID(id string) (*structs.Allocation, error) {
	for _, a := range s.allocs {
		if a.ID == id {
			return a, nil
		}
	}
	return nil, nil
}

func sumsAlloc(r *rand.Rand, id, node string) *structs.Allocation {
	a := &structs.Allocation{ID: id, NodeID: node, DesiredStatus: structs.AllocDesiredStatusRun,
		AllocatedResources: &structs.AllocatedResources{Tasks: map[string]*structs.AllocatedTaskResources{"t": {
			Cpu:    structs.AllocatedCpuResources{CpuShares: int64(1 + r.Intn(700))},
			Memory: structs.AllocatedMemoryResources{MemoryMB: int64(1 + r.Intn(700))}}}}}
	if r.Intn(5) == 0 {
		a.ClientStatus = structs.AllocClientStatusComplete
	}
	return a
}

// TestFitsBySumsAgreesWithListing: for random nodes, allocations and plans
// (new placements, in-place replacements, stops and preemptions, with and
// without a result in flight overlaid), checking a node on the sums gives
// the same verdict as listing and adding its allocations.
func TestFitsBySumsAgreesWithListing(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	nodes := []string{"n0", "n1", "n2"}
	agreedFit, agreedMiss := 0, 0
	for round := 0; round < 2000; round++ {
		ls := &listSnap{nodes: map[string]*structs.Node{}}
		for _, id := range nodes {
			ls.nodes[id] = &structs.Node{ID: id, Status: structs.NodeStatusReady, NodeResources: &structs.NodeResources{
				Cpu: structs.NodeCpuResources{CpuShares: int64(500 + r.Intn(2500))}, Memory: structs.NodeMemoryResources{MemoryMB: 2000}}}
		}
		for i := range r.Intn(8) {
			ls.allocs = append(ls.allocs, sumsAlloc(r, fmt.Sprintf("old%d", i), nodes[r.Intn(3)]))
		}
		pick := func() *structs.Allocation { return ls.allocs[r.Intn(len(ls.allocs))] }
		plan := func() *structs.Plan {
			p := &structs.Plan{NodeAllocation: map[string][]*structs.Allocation{}, NodeUpdate: map[string][]*structs.Allocation{},
				NodePreemptions: map[string][]*structs.Allocation{}}
			for i := range r.Intn(4) {
				a := sumsAlloc(r, fmt.Sprintf("new%d-%d", round, i), nodes[r.Intn(3)])
				if len(ls.allocs) > 0 && r.Intn(3) == 0 { // in place: same ID, same node, new resources
					old := pick()
					a.ID, a.NodeID = old.ID, old.NodeID
				}
				a.ClientStatus = ""
				p.NodeAllocation[a.NodeID] = append(p.NodeAllocation[a.NodeID], a)
			}
			if len(ls.allocs) > 0 && r.Intn(2) == 0 {
				old := pick()
				stop := &structs.Allocation{ID: old.ID, NodeID: old.NodeID, DesiredStatus: structs.AllocDesiredStatusStop}
				if r.Intn(2) == 0 {
					p.NodeUpdate[old.NodeID] = append(p.NodeUpdate[old.NodeID], stop)
				} else {
					p.NodePreemptions[old.NodeID] = append(p.NodePreemptions[old.NodeID], stop)
				}
			}
			return p
		}
		var listing, summed Snapshot = ls, sumSnap{ls}
		if r.Intn(2) == 0 { // a result in flight
			inflight := plan()
			req := &structs.ApplyPlanResultsRequest{}
			for _, as := range inflight.NodeAllocation {
				req.AllocsPlaced = append(req.AllocsPlaced, as...)
			}
			for _, as := range inflight.NodeUpdate {
				req.AllocsStopped = append(req.AllocsStopped, as...)
			}
			for _, as := range inflight.NodePreemptions {
				req.AllocsPreempted = append(req.AllocsPreempted, as...)
			}
			listing, summed = newOverlay(ls, req), newOverlay(sumSnap{ls}, req)
		}
		if _, ok := sums(listing); ok {
			t.Fatal("a listing snapshot claims sums")
		}
		if _, ok := sums(summed); !ok {
			t.Fatal("a summing snapshot does not claim sums")
		}
		p := plan()
		for _, id := range nodes {
			fit1, why1, err1 := evaluateNode(listing, p, id)
			fit2, why2, err2 := evaluateNode(summed, p, id)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if fit1 != fit2 || why1 != why2 {
				t.Fatalf("round %d node %s: listing %v %q, sums %v %q", round, id, fit1, why1, fit2, why2)
			}
			if len(p.NodeAllocation[id]) > 0 {
				if fit1 {
					agreedFit++
				} else {
					agreedMiss++
				}
			}
		}
	}
	if agreedFit < 100 || agreedMiss < 100 {
		t.Fatalf("too few cases of each kind: %d fit, %d did not", agreedFit, agreedMiss)
	}
}
