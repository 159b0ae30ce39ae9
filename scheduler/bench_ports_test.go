package scheduler_test

import (
	"testing"

	"github.com/nomadish/nomadish/scheduler/schedulertest"
	"github.com/nomadish/nomadish/structs"
)

// BenchmarkServiceSchedulerPorts is the 5,000-node, 25-rack, 1,200-alloc
// shape of BenchmarkServiceScheduler with a network block (one static and
// two dynamic ports): what the port check costs a job that asks for ports.
// Two allocs of the group on one node would collide on the static port, so
// the job places one alloc per node (a node already holding one is
// exhausted on "network: reserved port collision").
func BenchmarkServiceSchedulerPorts(b *testing.B) {
	s := schedulertest.NewStore()
	for i := range 5000 {
		s.UpsertNode(benchNode(i, 25))
	}
	job := benchJob(25, 1200, false)
	job.TaskGroups[0].Networks = []*structs.NetworkResource{{Mode: "host",
		ReservedPorts: []structs.Port{{Label: "admin", Value: 9090}},
		DynamicPorts:  []structs.Port{{Label: "http"}, {Label: "grpc"}}}}
	s.UpsertJob(job)
	eval := schedulertest.Eval("bench-eval", job, structs.EvalTriggerJobRegister)
	b.ReportAllocs()
	placed := 0
	for b.Loop() {
		placed += processOnce(b, s, eval)
	}
	if placed == 0 {
		b.Fatal("nothing placed")
	}
	b.ReportMetric(float64(placed)/b.Elapsed().Seconds(), "placements/s")
}
