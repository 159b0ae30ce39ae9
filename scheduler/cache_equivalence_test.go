package scheduler_test

import (
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/scheduler/schedulertest"
	"github.com/nomadish/nomadish/structs"
)

// TestCachesChangeNoPlan: the per-eval caches by node position (feasibility
// verdicts, node slots, spread and anti-affinity counts, fit-score memo)
// are an optimisation only. For the same state and eval, the scheduler with
// them and without them (scheduler.Uncached) places every allocation on the
// same node with the same metric.
func TestCachesChangeNoPlan(t *testing.T) {
	for _, tc := range []struct {
		name string
		job  func() *structs.Job
		prep func(*schedulertest.Store) // a first job half-filling the cluster, or nothing
		// update: the job is a new version of fillFirst's (same ID): the plan
		// stops allocations before it places any
		update bool
	}{
		{"destructive_update", func() *structs.Job {
			j := benchJob(25, 600, true)
			j.TaskGroups[0].Tasks[0].Resources.MemoryMB = 5000
			return j
		}, fillFirst, true},
		{"binpack", func() *structs.Job { return benchJob(25, 300, false) }, nil, false},
		{"spread", func() *structs.Job { return benchJob(25, 300, true) }, nil, false},
		{"binpack_on_used", func() *structs.Job { return benchJob(25, 300, false) }, fillFirst, false},
		{"spread_on_used", func() *structs.Job { return benchJob(75, 300, true) }, fillFirst, false},
		{"distinct_hosts", func() *structs.Job {
			j := benchJob(25, 200, false)
			j.Constraints = append(j.Constraints, &structs.Constraint{Operand: structs.ConstraintDistinctHosts})
			return j
		}, fillFirst, false},
		{"spread_targets", func() *structs.Job {
			j := benchJob(25, 200, false)
			j.TaskGroups[0].Spreads = []*structs.Spread{{Attribute: "${node.datacenter}", Weight: 50,
				SpreadTarget: []*structs.SpreadTarget{{Value: "dc-1", Percent: 70}}}}
			return j
		}, nil, false},
		{"full", func() *structs.Job { return benchJob(25, 1200, false) }, fillFirst, false}, // some placements fail
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got [2]map[string]string
			for i, uncached := range []bool{false, true} {
				s := benchStore(1000, 25)
				if tc.prep != nil {
					tc.prep(s)
				}
				job := tc.job()
				if !tc.update {
					job.ID = "second"
				}
				s.UpsertJob(job)
				h := &scheduler.Harness{}
				sched, err := scheduler.New("service", scheduler.Config{State: s, Planner: h, Now: benchNow})
				if err != nil {
					t.Fatal(err)
				}
				if uncached {
					scheduler.Uncached(sched)
				}
				if err := sched.Process(schedulertest.Eval("eq-eval", job, structs.EvalTriggerJobRegister)); err != nil {
					t.Fatal(err)
				}
				got[i] = planSummary(h)
			}
			if len(got[0]) == 0 {
				t.Fatal("nothing placed")
			}
			if !reflect.DeepEqual(got[0], got[1]) {
				for k, v := range got[1] {
					if got[0][k] != v {
						t.Errorf("%s:\n cached   %s\n uncached %s", k, got[0][k], v)
					}
				}
				t.FailNow()
			}
		})
	}
}

// fillFirst places a first 600-allocation job of the benchmark shape and
// applies its plan.
func fillFirst(s *schedulertest.Store) {
	first := benchJob(25, 600, false)
	s.UpsertJob(first)
	sched, err := scheduler.New("service", scheduler.Config{State: s, Planner: s, Now: benchNow})
	if err != nil {
		panic(err)
	}
	if err := sched.Process(schedulertest.Eval("first-eval", first, structs.EvalTriggerJobRegister)); err != nil {
		panic(err)
	}
}

// planSummary is, per allocation name, its node and metric, and the failed
// groups' metrics and blocked evals.
func planSummary(h *scheduler.Harness) map[string]string {
	out := map[string]string{}
	for _, p := range h.Plans {
		for node, as := range p.NodeAllocation {
			for _, a := range as {
				out[a.Name] = node + " " + metricSummary(a.Metrics)
			}
		}
	}
	for _, e := range h.UpdatedEvals {
		for tg, m := range e.FailedTGAllocs {
			out["failed "+tg] = metricSummary(m)
		}
	}
	return out
}

func metricSummary(m *structs.AllocMetric) string {
	if m == nil {
		return "<nil>"
	}
	var top []string
	for _, s := range m.ScoreMetaData {
		keys := make([]string, 0, len(s.Scores))
		for k := range s.Scores {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		sc := ""
		for _, k := range keys {
			sc += fmt.Sprintf(" %s=%v", k, s.Scores[k])
		}
		top = append(top, fmt.Sprintf("%s:%v%s", s.NodeID, s.NormScore, sc))
	}
	return fmt.Sprintf("eval=%d filtered=%d %v class=%v exhausted=%d %v coalesced=%d top=%v",
		m.NodesEvaluated, m.NodesFiltered, m.ConstraintFiltered, m.ClassFiltered, m.NodesExhausted,
		m.DimensionExhausted, m.CoalescedFailures, top)
}
