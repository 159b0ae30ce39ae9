package scheduler_test

import (
	"fmt"
	"testing"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/scheduler/schedulertest"
	"github.com/nomadish/nomadish/structs"
)

// BenchmarkNUMAFill fills a 5,000-node cluster of 2 NUMA nodes x 16 cores
// with jobs of 500 allocs asking cores = 2, 4, 8, 2, 4, 8, ... until an
// eval first fails to place an alloc, and reports placements per second and
// the fraction of the cluster's cores stranded then: free, but not usable
// by the next 4-core require ask (a NUMA node's free cores mod 4). The
// sub-benchmarks compare numa affinity require with none.
func BenchmarkNUMAFill(b *testing.B) {
	for _, aff := range []string{structs.NUMAAffinityRequire, structs.NUMAAffinityNone} {
		b.Run(aff, func(b *testing.B) {
			var placed, free, stranded, total int
			for b.Loop() {
				b.StopTimer()
				s := schedulertest.NewStore()
				for i := range 5000 {
					s.UpsertNode(numaBenchNode(i))
				}
				b.StartTimer()
				placed += fillNUMA(b, s, aff)
				b.StopTimer()
				f, st, tot := strandedCores(s)
				free, stranded, total = free+f, stranded+st, total+tot
				b.StartTimer()
			}
			b.ReportMetric(float64(placed)/b.Elapsed().Seconds(), "placements/s")
			b.ReportMetric(float64(stranded)/float64(total), "stranded/cores")
			b.ReportMetric(float64(free)/float64(total), "free/cores")
		})
	}
}

// numaBenchNode is a node of 2 NUMA nodes x 16 cores at 2000 MHz.
func numaBenchNode(i int) *structs.Node {
	n := schedulertest.Node(fmt.Sprintf("node-%05d", i), "dc1", 32*2000, 256000)
	n.NodeResources.Cpu.TotalCpuCores = 32
	n.NodeResources.Processors.Topology = testTopology(2, 16, false)
	return n
}

// fillNUMA registers and processes jobs until one eval leaves an alloc
// unplaced; it returns the allocs placed.
func fillNUMA(b *testing.B, s *schedulertest.Store, aff string) int {
	placed := 0
	sizes := []int{2, 4, 8}
	for i := 0; ; i++ {
		job := schedulertest.Job(fmt.Sprintf("j%04d", i), structs.JobTypeService, 500, 0, 256)
		r := job.TaskGroups[0].Tasks[0].Resources
		r.Cores, r.NUMA = sizes[i%len(sizes)], &structs.NUMA{Affinity: aff}
		s.UpsertJob(job)
		eval := schedulertest.Eval(fmt.Sprintf("e%04d", i), job, structs.EvalTriggerJobRegister)
		s.UpsertEval(eval)
		sched, err := scheduler.New("service", scheduler.Config{State: s, Planner: s, Now: benchNow})
		if err != nil {
			b.Fatal(err)
		}
		plans := len(s.Plans)
		if err := sched.Process(eval.Copy()); err != nil {
			b.Fatal(err)
		}
		for _, p := range s.Plans[plans:] {
			for _, as := range p.NodeAllocation {
				placed += len(as)
			}
		}
		if e := s.Eval(eval.ID); e != nil && len(e.FailedTGAllocs) > 0 {
			return placed
		}
	}
}

// strandedCores counts the cluster's free cores, those of them a 4-core
// require ask cannot use (each NUMA node's free cores mod 4), and all cores.
func strandedCores(s *schedulertest.Store) (free, stranded, total int) {
	nodes, _ := s.Nodes()
	for _, n := range nodes {
		held := map[uint16]bool{}
		allocs, _ := s.AllocsByNode(n.ID)
		for _, a := range allocs {
			if a.TerminalStatus() {
				continue
			}
			for _, t := range a.AllocatedResources.Tasks {
				for _, id := range t.Cpu.ReservedCores {
					held[id] = true
				}
			}
		}
		perNUMA := map[uint8]int{}
		for _, c := range n.CoreTopology().Cores {
			total++
			if !held[c.ID] {
				perNUMA[c.NodeID]++
			}
		}
		for _, f := range perNUMA {
			free += f
			stranded += f % 4
		}
	}
	return free, stranded, total
}
