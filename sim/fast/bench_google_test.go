package fast

import (
	"runtime/debug"
	"testing"
	"time"

	"github.com/nomadish/nomadish/sim/cluster"
	"github.com/nomadish/nomadish/sim/trace"
)

// googleConfig is `nomadish sim run -nodes N -topology 2x16x2 -generate
// google2019 -duration d -load load -workers 4 -seed 7`.
// With names, the nodes are split over node classes of those names and the
// trace constrains some jobs (Params.ClassShare) to one of them.
func googleConfig(b *testing.B, nodes int, d time.Duration, load float64, names ...string) Config {
	class, err := cluster.ParseTopology("2x16x2")
	if err != nil {
		b.Fatal(err)
	}
	classes := []cluster.Class{class}
	if len(names) > 0 {
		classes = nil
		for _, n := range names {
			c := class
			c.Name = n
			classes = append(classes, c)
		}
	}
	spec := cluster.Spec{Nodes: nodes, Classes: classes}.WithDefaults()
	c := spec.Classes[0]
	tr, err := trace.Generate("google2019", trace.Options{Seed: 7, Duration: d, Nodes: nodes, Load: load,
		NodeMemoryMB: c.MemoryMB, NodeCores: c.LogicalCPUs(), NodeCPUMHz: c.LogicalCPUs() * c.MHz, Racks: spec.Racks,
		NodeClasses: names})
	if err != nil {
		b.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Cluster, cfg.Trace, cfg.Duration, cfg.Workers, cfg.Seed = spec, tr, d, 4, 7
	return cfg
}

func benchGoogle(b *testing.B, cfg Config) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	var s *Sim
	for b.Loop() {
		s, _ = run(b, cfg)
	}
	b.ReportMetric(float64(s.placements), "placements")
	b.ReportMetric(float64(s.evals), "evals")
	b.ReportMetric(float64(s.blockedPeak), "blocked-peak")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/run")
}

// BenchmarkGoogleSaturated100 is the saturated run: 100 nodes, 20 minutes
// of google2019 at the default load; the cluster fills and most capacity
// changes meet a full blocked set.
func BenchmarkGoogleSaturated100(b *testing.B) {
	benchGoogle(b, googleConfig(b, 100, 20*time.Minute, trace.DefaultLoad))
}

// BenchmarkGoogle2h5000 is the first 2 h of BenchmarkGoogleDay5000's
// cluster and load (the whole day is ~169,000 jobs, 1.5 million
// allocations).
func BenchmarkGoogle2h5000(b *testing.B) {
	benchGoogle(b, googleConfig(b, 5000, 2*time.Hour, 0.5))
}

// BenchmarkGoogleDay5000 is `sim run -nodes 5000 -duration 24h -load 0.5`.
func BenchmarkGoogleDay5000(b *testing.B) {
	benchGoogle(b, googleConfig(b, 5000, 24*time.Hour, 0.5))
}
