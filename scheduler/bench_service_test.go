package scheduler_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/scheduler/schedulertest"
	"github.com/nomadish/nomadish/structs"
)

// BenchmarkServiceScheduler mirrors Nomad's scheduler benchmark shapes
// (issue 3, "Benchmark"): N nodes in R racks, a service job of A
// allocations with or without a spread over the racks. One op is the
// scheduler processing one registration eval for the job and producing its
// plan; the Harness does not apply it, so every op places the whole job
// again. It reports placements/s (allocations placed per second of wall
// time) and B/placement besides allocs/op.
//
// Each node has 4 x 3,500 MHz (100 reserved) and 32,000 MB (256 reserved),
// so two of the 6,000 MHz asks fit; the job's rack constraint leaves half
// the nodes, so N/2 nodes hold N placements and the 1,000-node shapes with
// 1,200 allocations place 1,000 and fail the rest (a blocked eval).
func BenchmarkServiceScheduler(b *testing.B) {
	for _, nodes := range []int{1000, 5000, 10000} {
		for _, racks := range []int{25, 75} {
			for _, allocs := range []int{300, 1200} {
				for _, spread := range []bool{false, true} {
					name := fmt.Sprintf("%d_nodes_%d_racks_%d_allocs_%s", nodes, racks, allocs, spreadName(spread))
					b.Run(name, func(b *testing.B) { benchService(b, nodes, racks, allocs, spread) })
				}
			}
		}
	}
}

func spreadName(spread bool) string {
	if spread {
		return "spread"
	}
	return "no_spread"
}

func benchService(b *testing.B, nodes, racks, allocs int, spread bool) {
	s := schedulertest.NewStore()
	for i := range nodes {
		s.UpsertNode(benchNode(i, racks))
	}
	job := benchJob(racks, allocs, spread)
	s.UpsertJob(job)
	eval := schedulertest.Eval("bench-eval", job, structs.EvalTriggerJobRegister)
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	placed := 0
	for b.Loop() {
		placed += processOnce(b, s, eval)
	}
	runtime.ReadMemStats(&after)
	if placed == 0 {
		b.Fatal("nothing placed")
	}
	b.ReportMetric(float64(placed)/b.Elapsed().Seconds(), "placements/s")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(placed), "B/placement")
}

// processOnce runs the service scheduler on eval with a Harness and returns
// how many allocations its plan places.
func processOnce(b *testing.B, s scheduler.State, eval *structs.Evaluation) int {
	h := &scheduler.Harness{}
	sched, err := scheduler.New("service", scheduler.Config{State: s, Planner: h, Now: benchNow})
	if err != nil {
		b.Fatal(err)
	}
	if err := sched.Process(eval.Copy()); err != nil {
		b.Fatal(err)
	}
	if len(h.Plans) != 1 {
		b.Fatalf("%d plans", len(h.Plans))
	}
	placed := 0
	for _, as := range h.Plans[0].NodeAllocation {
		placed += len(as)
	}
	return placed
}

func benchNow() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

// benchNode is node i of the benchmark cluster: datacenter dc-1 or dc-2 in
// turn, rack r<i mod racks>, 4 x 3,500 MHz, 32,000 MB, 100 GB disk, with
// reservations.
func benchNode(i, racks int) *structs.Node {
	dc := "dc-1"
	if i%2 == 1 {
		dc = "dc-2"
	}
	n := schedulertest.Node(fmt.Sprintf("node-%05d", i), dc, 4*3500, 32000)
	n.NodeResources.Cpu.TotalCpuCores = 4
	n.NodeResources.Disk.DiskMB = 100 * 1024
	n.ReservedResources = &structs.NodeReservedResources{
		Cpu:    structs.NodeReservedCpuResources{CpuShares: 100},
		Memory: structs.NodeReservedMemoryResources{MemoryMB: 256},
		Disk:   structs.NodeReservedDiskResources{DiskMB: 4 * 1024},
	}
	n.Attributes["kernel.name"] = "linux"
	n.Attributes["consul.version"] = "1.11.4"
	n.Meta = map[string]string{"rack": fmt.Sprintf("r%d", i%racks)}
	return n
}

// benchJob is the benchmark's service job: constraints on the kernel and
// on the first half of the racks, a semver constraint on the group, 150 MB
// of ephemeral disk, one task of 6,000 MHz and 6,000 MB, count allocs, and
// optionally a spread over the racks.
func benchJob(racks, allocs int, spread bool) *structs.Job {
	job := schedulertest.Job("bench", structs.JobTypeService, allocs, 6000, 6000)
	job.Datacenters = []string{"dc-1", "dc-2"}
	half := make([]string, racks/2)
	for i := range half {
		half[i] = fmt.Sprintf("r%d", i)
	}
	job.Constraints = []*structs.Constraint{
		{LTarget: "${attr.kernel.name}", Operand: structs.ConstraintEqual, RTarget: "linux"},
		{LTarget: "${meta.rack}", Operand: structs.ConstraintSetContainsAny, RTarget: strings.Join(half, ",")},
	}
	tg := job.TaskGroups[0]
	tg.Constraints = []*structs.Constraint{
		{LTarget: "${attr.consul.version}", Operand: structs.ConstraintSemver, RTarget: ">= 1.8.0"},
	}
	tg.EphemeralDisk = &structs.EphemeralDisk{SizeMB: 150}
	if spread {
		tg.Spreads = []*structs.Spread{{Attribute: "${meta.rack}", Weight: structs.DefaultSpreadWeight}}
	}
	return job
}
