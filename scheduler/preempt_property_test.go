package scheduler

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/nomadish/nomadish/structs"
)

// findPreemption on random nodes: a set it returns is made of allocs at
// least 10 priorities lower, makes the ask fit, and has no alloc it could
// keep; when it returns none, the ask either fits already or does not fit
// even with every lower-priority alloc evicted.
func TestFindPreemptionProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		node := &structs.Node{ID: "n1", NodeResources: &structs.NodeResources{
			Cpu:    structs.NodeCpuResources{CpuShares: int64(rapid.IntRange(1000, 4000).Draw(t, "cpu"))},
			Memory: structs.NodeMemoryResources{MemoryMB: int64(rapid.IntRange(1024, 4096).Draw(t, "mem"))},
			Disk:   structs.NodeDiskResources{DiskMB: 10000},
		}}
		var allocs []*structs.Allocation
		for i := range rapid.IntRange(0, 8).Draw(t, "allocs") {
			a := preemptAlloc(fmt.Sprintf("a%d", i), 10*rapid.IntRange(1, 10).Draw(t, "prio"),
				int64(rapid.IntRange(100, 1500).Draw(t, "acpu")), int64(rapid.IntRange(64, 1024).Draw(t, "amem")))
			if fit, _, _ := structs.AllocsFit(node, append(allocs, a)); fit {
				allocs = append(allocs, a)
			}
		}
		ask := askOf(int64(rapid.IntRange(100, 2000).Draw(t, "askcpu")), int64(rapid.IntRange(64, 2048).Draw(t, "askmem")))
		priority := rapid.IntRange(10, 100).Draw(t, "priority")
		ctx := newEvalContext(nodeAllocsState{allocs: allocs}, structs.NewPlan(&structs.Evaluation{ID: "e"}, nil))
		p, err := findPreemption(ctx, node, ask, nil, priority)
		if err != nil {
			t.Fatal(err)
		}
		probe := &structs.Allocation{DesiredStatus: structs.AllocDesiredStatusRun, AllocatedResources: ask}
		fitsWithout := func(evicted map[string]bool) bool {
			rest := []*structs.Allocation{probe}
			for _, a := range allocs {
				if !evicted[a.ID] {
					rest = append(rest, a)
				}
			}
			fit, _, _ := structs.AllocsFit(node, rest)
			return fit
		}
		if p == nil {
			all := map[string]bool{}
			for _, a := range allocs {
				if a.Job.Priority <= priority-structs.PreemptionMinPriorityDelta {
					all[a.ID] = true
				}
			}
			if !fitsWithout(nil) && fitsWithout(all) {
				t.Fatalf("no preemption, but evicting all %d lower-priority allocs makes room", len(all))
			}
			return
		}
		evicted := map[string]bool{}
		cost := 0
		for _, a := range p.allocs {
			if evicted[a.ID] || a.Job.Priority > priority-structs.PreemptionMinPriorityDelta {
				t.Fatalf("evicts %s (priority %d) for priority %d, or twice", a.ID, a.Job.Priority, priority)
			}
			evicted[a.ID] = true
			cost += a.Job.Priority
		}
		if cost != p.cost || !fitsWithout(evicted) {
			t.Fatalf("cost %d (want %d) or the ask still does not fit", p.cost, cost)
		}
		for id := range evicted {
			delete(evicted, id)
			if fitsWithout(evicted) {
				t.Fatalf("%s evicted for nothing", id)
			}
			evicted[id] = true
		}
	})
}
