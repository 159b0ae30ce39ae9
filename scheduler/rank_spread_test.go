package scheduler_test

import (
	"fmt"
	"testing"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/scheduler/schedulertest"
	"github.com/nomadish/nomadish/structs"
)

// TestSpreadEvenness places the benchmark's spread job and checks that the
// bounded candidate set (DefaultPreferenceScoreLimit) keeps the racks even:
// the feasible racks' counts differ by at most one.
func TestSpreadEvenness(t *testing.T) {
	for _, tc := range []struct{ nodes, racks, allocs int }{
		{1000, 25, 300}, {1000, 75, 300}, {2000, 75, 900},
	} {
		t.Run(fmt.Sprintf("%d_%d_%d", tc.nodes, tc.racks, tc.allocs), func(t *testing.T) {
			s := schedulertest.NewStore()
			for i := range tc.nodes {
				s.UpsertNode(benchNode(i, tc.racks))
			}
			job := benchJob(tc.racks, tc.allocs, true)
			s.UpsertJob(job)
			h := &scheduler.Harness{}
			sched, err := scheduler.New("service", scheduler.Config{State: s, Planner: h, Now: benchNow})
			if err != nil {
				t.Fatal(err)
			}
			if err := sched.Process(schedulertest.Eval("e1", job, structs.EvalTriggerJobRegister)); err != nil {
				t.Fatal(err)
			}
			perRack := map[string]int{}
			placed := 0
			for node, as := range h.Plans[0].NodeAllocation {
				n, _ := s.NodeByID(node)
				perRack[n.Meta["rack"]] += len(as)
				placed += len(as)
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
				t.Errorf("racks used %d (want %d), counts from %d to %d: %v", len(perRack), tc.racks/2, lo, hi, perRack)
			}
		})
	}
}
