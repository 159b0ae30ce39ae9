package scheduler

import (
	"slices"
	"sort"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// preemptAlloc is a live alloc named id on n1 of a job with the priority.
func preemptAlloc(id string, prio int, cpu, mem int64) *structs.Allocation {
	return &structs.Allocation{
		ID: id, Name: id, NodeID: "n1", JobID: "job-" + id, Namespace: "default",
		Job:           &structs.Job{ID: "job-" + id, Priority: prio},
		DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning,
		AllocatedResources: &structs.AllocatedResources{Tasks: map[string]*structs.AllocatedTaskResources{
			"t": {Cpu: structs.AllocatedCpuResources{CpuShares: cpu}, Memory: structs.AllocatedMemoryResources{MemoryMB: mem}},
		}},
	}
}

func askOf(cpu, mem int64) *structs.AllocatedResources {
	return preemptAlloc("ask", 0, cpu, mem).AllocatedResources
}

func TestFindPreemption(t *testing.T) {
	cases := []struct {
		name     string
		allocs   []*structs.Allocation
		cpu, mem int64 // the ask; the node has 2000 MHz, 2048 MB
		priority int
		want     []string // IDs evicted, sorted; nil: no preemption
		cost     int
	}{
		{name: "priority delta 9 is not enough", priority: 59,
			allocs: []*structs.Allocation{preemptAlloc("a", 50, 2000, 512)}, cpu: 500, mem: 100},
		{name: "priority delta 10 is", priority: 60,
			allocs: []*structs.Allocation{preemptAlloc("a", 50, 2000, 512)}, cpu: 500, mem: 100, want: []string{"a"}, cost: 50},
		{name: "lowest priority first", priority: 90, allocs: []*structs.Allocation{
			preemptAlloc("p40", 40, 1000, 100), preemptAlloc("p10", 10, 1000, 100),
		}, cpu: 1000, mem: 100, want: []string{"p10"}, cost: 10},
		{name: "closest fit within a priority", priority: 90, allocs: []*structs.Allocation{
			preemptAlloc("small", 10, 200, 100), preemptAlloc("exact", 10, 800, 100), preemptAlloc("large", 10, 1000, 100),
		}, cpu: 800, mem: 100, want: []string{"exact"}, cost: 10},
		{name: "superfluous low allocs dropped", priority: 90, allocs: []*structs.Allocation{
			preemptAlloc("tiny1", 10, 100, 10), preemptAlloc("tiny2", 10, 100, 10), preemptAlloc("big", 20, 1800, 10),
		}, cpu: 1500, mem: 10, want: []string{"big"}, cost: 20},
		{name: "one of 30 is cheaper than two of 20", priority: 90, allocs: []*structs.Allocation{
			preemptAlloc("a", 20, 500, 100), preemptAlloc("b", 20, 500, 100), preemptAlloc("c", 30, 1000, 100),
		}, cpu: 1000, mem: 100, want: []string{"c"}, cost: 30},
		{name: "several when one is not enough", priority: 90, allocs: []*structs.Allocation{
			preemptAlloc("a", 10, 1000, 100), preemptAlloc("b", 10, 1000, 100),
		}, cpu: 1500, mem: 100, want: []string{"a", "b"}, cost: 20},
		{name: "memory short, cpu free", priority: 90, allocs: []*structs.Allocation{
			preemptAlloc("cpu", 10, 1000, 48), preemptAlloc("mem", 10, 100, 2000),
		}, cpu: 100, mem: 1024, want: []string{"mem"}, cost: 10},
		{name: "not enough even evicting all", priority: 90, allocs: []*structs.Allocation{
			preemptAlloc("lo", 10, 500, 100), preemptAlloc("hi", 85, 1500, 100),
		}, cpu: 1000, mem: 100},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			node := &structs.Node{ID: "n1", NodeResources: &structs.NodeResources{
				Cpu: structs.NodeCpuResources{CpuShares: 2000}, Memory: structs.NodeMemoryResources{MemoryMB: 2048},
				Disk: structs.NodeDiskResources{DiskMB: 1000},
			}}
			ctx := newEvalContext(nodeAllocsState{allocs: tc.allocs}, structs.NewPlan(&structs.Evaluation{ID: "e"}, nil))
			p, err := findPreemption(ctx, node, askOf(tc.cpu, tc.mem), nil, tc.priority)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if p != nil {
					t.Fatalf("want no preemption, got %v", ids(p.allocs))
				}
				return
			}
			if p == nil {
				t.Fatalf("want %v evicted, got no preemption", tc.want)
			}
			if got := ids(p.allocs); !slices.Equal(got, tc.want) || p.cost != tc.cost {
				t.Fatalf("evicted %v cost %d, want %v cost %d", got, p.cost, tc.want, tc.cost)
			}
		})
	}
}

func ids(as []*structs.Allocation) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.ID
	}
	sort.Strings(out)
	return out
}

func TestPreemptionCheaper(t *testing.T) {
	a := &preemption{cost: 20, allocs: make([]*structs.Allocation, 2)}
	b := &preemption{cost: 30, allocs: make([]*structs.Allocation, 1)}
	c := &preemption{cost: 20, allocs: make([]*structs.Allocation, 1)}
	if !a.cheaper(b) || b.cheaper(a) || !c.cheaper(a) || a.cheaper(c) || !b.cheaper(nil) {
		t.Fatal("cost order: sum of priorities, then fewer allocs")
	}
}

// nodeAllocsState is a State holding only allocations (of one node); the
// other methods are not called by findPreemption and panic.
type nodeAllocsState struct {
	State
	allocs []*structs.Allocation
}

func (s nodeAllocsState) LiveAllocsByNode(string) ([]*structs.Allocation, error) {
	var out []*structs.Allocation
	for _, a := range s.allocs {
		if !a.TerminalStatus() {
			out = append(out, a)
		}
	}
	return out, nil
}
