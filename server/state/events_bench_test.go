package state

import (
	"testing"

	"github.com/nomadish/nomadish/server/events"
	"github.com/nomadish/nomadish/structs"
)

// BenchmarkPlanApplyEvents measures a plan apply of 10 allocations into the
// store: without an event publisher (no change tracking, as before the
// event stream) and with the event stream's buffer (Nomad's default 100).
func BenchmarkPlanApplyEvents(b *testing.B) {
	for _, tc := range []struct {
		name string
		pub  EventPublisher
	}{{"no-publisher", nil}, {"publisher", events.New(100)}} {
		b.Run(tc.name, func(b *testing.B) { benchPlanApply(b, tc.pub) })
	}
}

// benchPlanApply starts a new store every 100 plans, so that the cost
// measured is the plan's, not the job status recompute's over a job's
// ever-growing allocations.
func benchPlanApply(b *testing.B, pub EventPublisher) {
	var s *StateStore
	job := testJob("web")
	fresh := func() {
		var err error
		if s, err = New(nil); err != nil {
			b.Fatal(err)
		}
		if pub != nil {
			s.SetEventPublisher(pub)
		}
		if err := s.UpsertJob(1, job, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for i := range b.N {
		if i%100 == 0 {
			b.StopTimer()
			fresh()
			b.StartTimer()
		}
		allocs := make([]*structs.Allocation, 10)
		for j := range allocs {
			allocs[j] = testAlloc(job, "n1", "e1")
			allocs[j].Job = nil
		}
		req := &structs.ApplyPlanResultsRequest{Job: job, AllocsPlaced: allocs, EvalID: "e1"}
		if err := s.UpsertPlanResults(uint64(i+2), req); err != nil {
			b.Fatal(err)
		}
	}
}
