package scheduler_test

import (
	"fmt"
	"testing"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/scheduler/schedulertest"
	"github.com/nomadish/nomadish/structs"
)

// BenchmarkSystemScheduler places one system job on 5,000 nodes (the issue's
// node shape: 4 cores x 3,500 MHz with 100 MHz reserved, 32,000 MB with 256
// reserved, 100 GB disk with 4 GB reserved; datacenters dc-1/dc-2). One op
// is the scheduler processing the job's registration eval and producing its
// plan, one allocation per node; the plan is not applied, so every op
// places the whole job again. Reports placements/s.
func BenchmarkSystemScheduler(b *testing.B) {
	const nodes = 5000
	s := schedulertest.NewStore()
	for i := range nodes {
		n := schedulertest.Node(fmt.Sprintf("node-%05d", i), fmt.Sprintf("dc-%d", i%2+1), 4*3500, 32000)
		n.ReservedResources = &structs.NodeReservedResources{
			Cpu:    structs.NodeReservedCpuResources{CpuShares: 100},
			Memory: structs.NodeReservedMemoryResources{MemoryMB: 256},
			Disk:   structs.NodeReservedDiskResources{DiskMB: 4 * 1024},
		}
		n.Attributes["kernel.name"] = "linux"
		s.UpsertNode(n)
	}
	job := schedulertest.Job("logs", structs.JobTypeSystem, 1, 500, 256)
	job.Datacenters = []string{"dc-1", "dc-2"}
	s.UpsertJob(job)
	eval := schedulertest.Eval("e1", job, structs.EvalTriggerJobRegister)
	b.ReportAllocs()
	ops := 0
	for b.Loop() {
		ops++
		h := &scheduler.Harness{}
		sched, err := scheduler.New(structs.JobTypeSystem, scheduler.Config{State: s, Planner: h, Now: fixedNow})
		if err != nil {
			b.Fatal(err)
		}
		if err := sched.Process(eval); err != nil {
			b.Fatal(err)
		}
		if n := len(h.Plans); n != 1 {
			b.Fatalf("%d plans", n)
		}
		if placed := len(h.Plans[0].NodeAllocation); placed != nodes {
			b.Fatalf("placed on %d nodes, want %d", placed, nodes)
		}
	}
	b.ReportMetric(float64(nodes*ops)/b.Elapsed().Seconds(), "placements/s")
}
