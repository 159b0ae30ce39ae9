package scheduler

import (
	"fmt"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// topoNode returns a node of numa NUMA nodes x per cores each; with smt,
// core i and i+numa*per/2 are SMT siblings (Linux numbering).
func topoNode(numa, per int, smt bool) *structs.Node {
	t := &structs.Topology{}
	total := numa * per
	for n := 0; n < numa; n++ {
		t.Nodes = append(t.Nodes, uint8(n))
	}
	for id := 0; id < total; id++ {
		c := structs.Core{ID: uint16(id), BaseSpeed: 2000}
		phys := id
		if smt {
			half := total / 2
			phys = id % half
			c.Siblings = []uint16{uint16(phys), uint16(phys + half)}
		}
		c.NodeID = uint8(phys / (per / map[bool]int{true: 2, false: 1}[smt]))
		t.Cores = append(t.Cores, c)
	}
	return &structs.Node{ID: "n", NodeResources: &structs.NodeResources{
		Cpu:        structs.NodeCpuResources{CpuShares: int64(total) * 2000, TotalCpuCores: uint16(total)},
		Memory:     structs.NodeMemoryResources{MemoryMB: 65536},
		Processors: structs.NodeProcessorResources{Topology: t},
	}}
}

func heldSet(ids ...uint16) map[uint16]bool {
	m := map[uint16]bool{}
	for _, id := range ids {
		m[id] = true
	}
	return m
}

func TestPickCores(t *testing.T) {
	for _, tc := range []struct {
		name  string
		node  *structs.Node
		held  map[uint16]bool
		asks  []coreAsk
		want  string // "task:[ids]" per task, or the dimension
		score float64
	}{
		{"2x8 require fits node 0", topoNode(2, 8, false), nil,
			[]coreAsk{{"t", 4, "require"}}, "t:[0 1 2 3]", 0.5},
		{"2x8 best fit picks the fuller NUMA node", topoNode(2, 8, false), heldSet(8, 9, 10, 11, 12),
			[]coreAsk{{"t", 3, "require"}}, "t:[13 14 15]", 1},
		{"2x8 require, split free", topoNode(2, 8, false), heldSet(0, 1, 2, 3, 4, 8, 9, 10, 11, 12),
			[]coreAsk{{"t", 4, "require"}}, structs.DimNUMA(4), 0},
		{"2x8 prefer spans and scores -1", topoNode(2, 8, false), heldSet(0, 1, 2, 3, 4, 8, 9, 10, 11, 12),
			[]coreAsk{{"t", 4, "prefer"}}, "t:[5 6 7 13]", -1},
		{"2x8 none spans and scores 0", topoNode(2, 8, false), heldSet(0, 1, 2, 3, 4, 8, 9, 10, 11, 12),
			[]coreAsk{{"t", 4, "none"}}, "t:[5 6 7 13]", 0},
		{"exhausted", topoNode(2, 8, false), heldSet(0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14),
			[]coreAsk{{"t", 3, "none"}}, structs.DimCores, 0},
		{"4x4 two tasks fill two NUMA nodes", topoNode(4, 4, false), nil,
			[]coreAsk{{"a", 4, "require"}, {"b", 4, "require"}}, "a:[0 1 2 3] b:[4 5 6 7]", 1},
		{"4x4 fragmented: best fit among 1,2,3,4 free", topoNode(4, 4, false), heldSet(0, 1, 2, 4, 5, 8),
			[]coreAsk{{"t", 2, "require"}}, "t:[6 7]", 1},
		{"SMT: siblings together", topoNode(2, 8, true), nil,
			[]coreAsk{{"t", 2, "require"}}, "t:[0 8]", 0.25},
		{"SMT: half-used physical core first", topoNode(2, 8, true), heldSet(0),
			[]coreAsk{{"t", 3, "require"}}, "t:[1 8 9]", 3.0 / 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tasks, score, dim := pickCores(freeCores(tc.node, tc.held), tc.asks)
			got := dim
			if dim == "" {
				got = ""
				for i, tk := range tasks {
					if i > 0 {
						got += " "
					}
					got += fmt.Sprintf("%s:%v", tk.task, tk.ids)
				}
			}
			if got != tc.want || (dim == "" && fmt.Sprintf("%.3f", score) != fmt.Sprintf("%.3f", tc.score)) {
				t.Errorf("got %s score %.3f, want %s score %.3f", got, score, tc.want, tc.score)
			}
		})
	}
}

// TestCoresWithoutTopology checks a node without a topology offers its
// reservable cores as NUMA node 0, minus its reserved cores.
func TestCoresWithoutTopology(t *testing.T) {
	n := &structs.Node{NodeResources: &structs.NodeResources{Cpu: structs.NodeCpuResources{
		CpuShares: 4000, TotalCpuCores: 4, ReservableCpuCores: []uint16{0, 1, 2, 3}}},
		ReservedResources: &structs.NodeReservedResources{Cpu: structs.NodeReservedCpuResources{ReservedCpuCores: []uint16{0}}}}
	free := freeCores(n, nil)
	if len(free) != 1 || fmt.Sprint(free[0].cores) != "[1 2 3]" {
		t.Fatalf("free = %+v", free)
	}
	if n.MHzPerCore() != 1000 {
		t.Errorf("MHzPerCore = %d", n.MHzPerCore())
	}
}
