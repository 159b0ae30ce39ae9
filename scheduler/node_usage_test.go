package scheduler

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// allocState is the smallest State: allocations by node. Embedding the
// interface makes the other methods panic if the code under test calls them.
type allocState struct {
	State
	byNode map[string][]*structs.Allocation
}

func (s allocState) LiveAllocsByNode(id string) ([]*structs.Allocation, error) {
	var out []*structs.Allocation
	for _, a := range s.byNode[id] {
		if !a.TerminalStatus() {
			out = append(out, a)
		}
	}
	return out, nil
}

func usageAlloc(id, node string, cpu, mem int64) *structs.Allocation {
	return &structs.Allocation{ID: id, NodeID: node, DesiredStatus: structs.AllocDesiredStatusRun,
		ClientStatus: structs.AllocClientStatusRunning,
		AllocatedResources: &structs.AllocatedResources{Tasks: map[string]*structs.AllocatedTaskResources{
			"t": {Cpu: structs.AllocatedCpuResources{CpuShares: cpu}, Memory: structs.AllocatedMemoryResources{MemoryMB: mem}}}}}
}

// TestUsageAgreesWithProposedAllocs builds random plans step by step
// (placements, stops, in-place updates) and checks after every step that the
// incremental usage equals the sum over proposedAllocs, the fit check's input.
func TestUsageAgreesWithProposedAllocs(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 1))
		nodes := make([]*structs.Node, 4)
		st := allocState{byNode: map[string][]*structs.Allocation{}}
		for i := range nodes {
			nodes[i] = &structs.Node{ID: fmt.Sprintf("n%d", i), NodeResources: &structs.NodeResources{
				Cpu: structs.NodeCpuResources{CpuShares: 100000}, Memory: structs.NodeMemoryResources{MemoryMB: 100000}}}
			for j := range r.IntN(3) {
				a := usageAlloc(fmt.Sprintf("e%d-%d", i, j), nodes[i].ID, int64(r.IntN(500)), int64(r.IntN(500)))
				if r.IntN(4) == 0 {
					a.ClientStatus = structs.AllocClientStatusFailed
				}
				st.byNode[nodes[i].ID] = append(st.byNode[nodes[i].ID], a)
			}
		}
		plan := &structs.Plan{NodeUpdate: map[string][]*structs.Allocation{}, NodeAllocation: map[string][]*structs.Allocation{},
			NodePreemptions: map[string][]*structs.Allocation{}}
		ctx := newEvalContext(st, plan)
		for step := range 40 {
			n := nodes[r.IntN(len(nodes))]
			existing := st.byNode[n.ID]
			switch k := r.IntN(4); {
			case k == 0 && len(existing) > 0: // stop one
				plan.AppendStoppedAlloc(existing[r.IntN(len(existing))], "stop", "")
			case k == 1 && len(existing) > 0: // in-place update with new resources
				up := *existing[r.IntN(len(existing))]
				up.AllocatedResources = usageAlloc("", "", int64(r.IntN(500)), 1).AllocatedResources
				plan.AppendAlloc(&up)
			default:
				plan.AppendAlloc(usageAlloc(fmt.Sprintf("p%d", step), n.ID, int64(r.IntN(500)), int64(r.IntN(500))))
			}
			for _, m := range nodes {
				u, err := ctx.usage(m)
				if err != nil {
					t.Fatal(err)
				}
				proposed, _ := ctx.proposedAllocs(m.ID)
				_, _, want := structs.AllocsFit(m, proposed)
				if u.Used != want {
					t.Fatalf("seed %d step %d node %s: usage %+v, proposedAllocs sum %+v", seed, step, m.ID, u.Used, want)
				}
			}
		}
	}
}

// TestFitsMatchesAllocsFit checks the ranker's incremental usage (the plan
// so far, added as it grows) against
// structs.AllocsFit over the whole list, the plan applier's call, on random
// nodes and asks: both decide with structs.Usage.Fits.
func TestFitsMatchesAllocsFit(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for i := range 500 {
		n := &structs.Node{ID: "n", NodeResources: &structs.NodeResources{
			Cpu: structs.NodeCpuResources{CpuShares: int64(r.IntN(4000))}, Memory: structs.NodeMemoryResources{MemoryMB: int64(r.IntN(4000))},
			Disk: structs.NodeDiskResources{DiskMB: int64(r.IntN(4000))}}}
		st := allocState{byNode: map[string][]*structs.Allocation{}}
		for j := range r.IntN(4) {
			a := usageAlloc(fmt.Sprint(j), "n", int64(r.IntN(1500)), int64(r.IntN(1500)))
			a.AllocatedResources.Shared.DiskMB = int64(r.IntN(1500))
			st.byNode["n"] = append(st.byNode["n"], a)
		}
		ctx := newEvalContext(st, &structs.Plan{})
		probe := usageAlloc("probe", "n", int64(r.IntN(1500)), int64(r.IntN(1500)))
		probe.AllocatedResources.Shared.DiskMB = int64(r.IntN(1500))
		u, err := ctx.usage(n)
		if err != nil {
			t.Fatal(err)
		}
		ok, dim, used := u.Fits(probe.AllocatedResources.Comparable())
		wantOK, wantDim, wantUsed := structs.AllocsFit(n, append(st.byNode["n"], probe))
		if ok != wantOK || dim != wantDim || used != wantUsed {
			t.Fatalf("case %d: fits = %v %q %+v, AllocsFit = %v %q %+v", i, ok, dim, used, wantOK, wantDim, wantUsed)
		}
	}
}
