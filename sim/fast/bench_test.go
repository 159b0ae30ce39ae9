package fast

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"testing"
	"time"

	"github.com/nomadish/nomadish/sim/cluster"
	"github.com/nomadish/nomadish/sim/trace"
)

// benchTrace is a simple seeded workload (the benchmark's own, so it does
// not depend on sim/trace's generators): jobs arrive every gap on average
// (Poisson); 80% are batch with log-normal durations (median 10 min), 20%
// services that run until the end; counts are heavy-tailed (Pareto, 1-200),
// sizes 100-4000 MHz and 256-8192 MB; one job in ten asks 2-8 cores with
// NUMA require.
func benchTrace(seed uint64, d, gap time.Duration) *trace.Trace {
	r := rand.New(rand.NewPCG(seed, 1))
	tr := &trace.Trace{Source: fmt.Sprintf("bench seed %d", seed)}
	for at, i := time.Duration(0), 0; at < d; i++ {
		j := trace.Job{ID: fmt.Sprintf("j%06d", i), Arrival: at, Type: "batch", Priority: 20 + r.IntN(60),
			Count: min(200, int(1/math.Pow(1-r.Float64(), 1/1.5))), CPU: 100 + r.IntN(3900), MemoryMB: 256 + r.IntN(7936)}
		if r.IntN(5) == 0 {
			j.Type = "service"
		} else {
			j.Duration = time.Duration(math.Exp(r.NormFloat64()*1.2) * float64(10*time.Minute))
		}
		if r.IntN(10) == 0 {
			j.Cores, j.NUMA = 2+2*r.IntN(4), "require"
		}
		tr.Jobs = append(tr.Jobs, j)
		at += time.Duration(r.ExpFloat64() * float64(gap))
	}
	return tr
}

// BenchmarkDay5000Nodes is the fast-mode target: 24 h of a 5,000-node
// cluster's trace (a job every 2 s on average, ~43,000 jobs) in under a
// minute of wall time. GC runs at 400%, as `sim run` sets it.
func BenchmarkDay5000Nodes(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	cfg := Config{Cluster: cluster.Spec{Nodes: 5000, Racks: 50, Datacenters: []string{"dc1", "dc2"}},
		Trace: benchTrace(1, 24*time.Hour, 2*time.Second), Duration: 24 * time.Hour, Workers: 4, Seed: 1}
	var r *Sim
	for b.Loop() {
		r, _ = run(b, cfg)
	}
	b.ReportMetric(float64(r.placements), "placements")
	b.ReportMetric(float64(r.placements)/(b.Elapsed().Seconds()/float64(b.N)), "placements/s")
	b.ReportMetric(float64(r.conflicts), "conflicts")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/simulated-day")
}

// BenchmarkWorkers is the Omega question on a busy cluster: 500 nodes,
// jobs submitted in bursts of 50 every 10 s for 30 minutes, with 1, 2, 4
// and 8 workers; it reports plan conflicts, retries and latencies.
func BenchmarkWorkers(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	tr := benchTrace(2, 30*time.Minute, 200*time.Millisecond)
	for i := range tr.Jobs {
		tr.Jobs[i].Arrival = time.Duration(i/50) * 10 * time.Second
	}
	for _, w := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			cfg := Config{Cluster: cluster.Spec{Nodes: 500, Racks: 10}, Trace: tr, Duration: 40 * time.Minute, Workers: w, Seed: 1}
			var s *Sim
			for b.Loop() {
				s, _ = run(b, cfg)
			}
			r := s.report()
			b.ReportMetric(float64(r.Placements), "placements")
			b.ReportMetric(float64(r.PlanConflicts), "conflicts")
			b.ReportMetric(float64(r.Retries), "retries")
			b.ReportMetric(r.QueueDelay.P99.Seconds()*1000, "queue-p99-ms")
			b.ReportMetric(r.PlacementLatency.P99.Seconds()*1000, "placement-p99-ms")
			b.ReportMetric(float64(r.BlockedEvalsPeak), "blocked-peak")
		})
	}
}
