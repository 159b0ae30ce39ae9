package scheduler_test

import (
	"fmt"
	"testing"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/scheduler/schedulertest"
	"github.com/nomadish/nomadish/structs"
)

// The placement-quality tests hold the benchmark shapes
// (BenchmarkServiceScheduler) to the quality the scheduler had before its
// speed work (issue 17): the bounds are what the slower pipeline achieved
// for the same seeds, so a faster pipeline may not place worse.

// placeBench runs one registration eval of the benchmark job and returns
// its plan's placements per node ID.
func placeBench(t *testing.T, s *schedulertest.Store, job *structs.Job) map[string]int {
	t.Helper()
	h := &scheduler.Harness{}
	sched, err := scheduler.New("service", scheduler.Config{State: s, Planner: h, Now: benchNow})
	if err != nil {
		t.Fatal(err)
	}
	if err := sched.Process(schedulertest.Eval("quality-eval", job, structs.EvalTriggerJobRegister)); err != nil {
		t.Fatal(err)
	}
	if len(h.Plans) != 1 {
		t.Fatalf("%d plans", len(h.Plans))
	}
	out := map[string]int{}
	for node, as := range h.Plans[0].NodeAllocation {
		out[node] += len(as)
	}
	return out
}

func benchStore(nodes, racks int) *schedulertest.Store {
	s := schedulertest.NewStore()
	for i := range nodes {
		s.UpsertNode(benchNode(i, racks))
	}
	return s
}

// TestQualitySpreadRackBalance: with a spread over the racks, every allowed
// rack gets a share and the shares differ by at most one allocation.
func TestQualitySpreadRackBalance(t *testing.T) {
	for _, tc := range []struct{ nodes, racks, allocs int }{
		{5000, 25, 1200}, {5000, 75, 1200}, {5000, 25, 300}, {5000, 75, 300}, {10000, 75, 1200},
	} {
		t.Run(fmt.Sprintf("%d_%d_%d", tc.nodes, tc.racks, tc.allocs), func(t *testing.T) {
			s := benchStore(tc.nodes, tc.racks)
			job := benchJob(tc.racks, tc.allocs, true)
			s.UpsertJob(job)
			perRack := map[string]int{}
			placed := 0
			for node, c := range placeBench(t, s, job) {
				n, _ := s.NodeByID(node)
				perRack[n.Meta["rack"]] += c
				placed += c
			}
			if placed != tc.allocs {
				t.Fatalf("placed %d of %d", placed, tc.allocs)
			}
			lo, hi := tc.allocs, 0
			for r := range tc.racks / 2 {
				c := perRack[fmt.Sprintf("r%d", r)]
				lo, hi = min(lo, c), max(hi, c)
			}
			if len(perRack) != tc.racks/2 || hi-lo > 1 {
				t.Errorf("racks used %d (want %d), counts from %d to %d", len(perRack), tc.racks/2, lo, hi)
			}
		})
	}
}

// TestQualityBinPackNodesUsed: without a spread, bin-packing fills nodes:
// two of the job's asks fit a node, so count allocations need count/2
// nodes; the pipeline uses more (it compares log2(nodes) candidates per
// placement and each pass starts where the last one stopped, as Nomad's, so
// an empty cluster gets one allocation per node), never more than before.
func TestQualityBinPackNodesUsed(t *testing.T) {
	for _, tc := range []struct{ nodes, racks, allocs, maxNodes int }{
		{5000, 25, 1200, 1200}, {5000, 75, 1200, 1200}, {5000, 25, 300, 300}, {1000, 25, 1200, 480},
	} {
		t.Run(fmt.Sprintf("%d_%d_%d", tc.nodes, tc.racks, tc.allocs), func(t *testing.T) {
			s := benchStore(tc.nodes, tc.racks)
			job := benchJob(tc.racks, tc.allocs, false)
			s.UpsertJob(job)
			placed, used := 0, 0
			for _, c := range placeBench(t, s, job) {
				placed += c
				used++
			}
			t.Logf("placed %d on %d nodes", placed, used)
			if used > tc.maxNodes {
				t.Errorf("placed %d on %d nodes, want at most %d", placed, used, tc.maxNodes)
			}
		})
	}
}

// TestQualityBinPackPrefersFullerNodes: on a cluster where a first job
// half-filled some nodes, a second job's placements go to those nodes
// before empty ones as far as the candidates compared allow: the number of
// empty nodes it opens is no more than before.
func TestQualityBinPackPrefersFullerNodes(t *testing.T) {
	for _, tc := range []struct{ nodes, racks, first, second, maxOpened int }{
		{5000, 25, 1200, 600, 2}, {2000, 75, 600, 300, 2},
	} {
		t.Run(fmt.Sprintf("%d_%d_%d_%d", tc.nodes, tc.racks, tc.first, tc.second), func(t *testing.T) {
			s := benchStore(tc.nodes, tc.racks)
			first := benchJob(tc.racks, tc.first, false)
			s.UpsertJob(first)
			sched, err := scheduler.New("service", scheduler.Config{State: s, Planner: s, Now: benchNow})
			if err != nil {
				t.Fatal(err)
			}
			if err := sched.Process(schedulertest.Eval("first-eval", first, structs.EvalTriggerJobRegister)); err != nil {
				t.Fatal(err)
			}
			held := map[string]bool{}
			for _, a := range s.Allocs() {
				held[a.NodeID] = true
			}
			if len(held) == 0 {
				t.Fatal("the first job placed nothing")
			}
			second := benchJob(tc.racks, tc.second, false)
			second.ID = "bench-2"
			s.UpsertJob(second)
			opened, placed := 0, 0
			for node, c := range placeBench(t, s, second) {
				placed += c
				if !held[node] {
					opened++
				}
			}
			t.Logf("first job on %d nodes; second placed %d, opening %d empty nodes", len(held), placed, opened)
			if placed != tc.second || opened > tc.maxOpened {
				t.Errorf("placed %d of %d, opening %d empty nodes, want at most %d", placed, tc.second, opened, tc.maxOpened)
			}
		})
	}
}
