package scheduler_test

import (
	"fmt"
	"testing"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/scheduler/schedulertest"
	"github.com/nomadish/nomadish/structs"
)

// BenchmarkServiceSchedule_1000Nodes places a 100-count service job on 1000
// nodes: reconcile, shuffle, 100 selects through the stack, plan built. The
// Harness records the plan instead of applying it, so every iteration sees the
// same state.
func BenchmarkServiceSchedule_1000Nodes(b *testing.B) {
	s := schedulertest.NewStore()
	for i := range 1000 {
		s.UpsertNode(schedulertest.Node(fmt.Sprintf("node-%04d", i), fmt.Sprintf("dc%d", i%3), 4000, 8192))
	}
	job := schedulertest.Job("web", structs.JobTypeService, 100, 500, 256)
	s.UpsertJob(job)
	eval := schedulertest.Eval("e1", job, structs.EvalTriggerJobRegister)
	b.ReportAllocs()
	for b.Loop() {
		h := &scheduler.Harness{}
		sched, err := scheduler.New("service", scheduler.Config{State: s, Planner: h, Now: fixedNow})
		if err != nil {
			b.Fatal(err)
		}
		if err := sched.Process(eval); err != nil {
			b.Fatal(err)
		}
		if n := len(h.Plans); n != 1 {
			b.Fatalf("%d plans", n)
		}
		placed := 0
		for _, as := range h.Plans[0].NodeAllocation {
			placed += len(as)
		}
		if placed != 100 {
			b.Fatalf("placed %d", placed)
		}
	}
}
