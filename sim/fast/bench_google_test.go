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
func googleConfig(b *testing.B, nodes int, d time.Duration, load float64) Config {
	class, err := cluster.ParseTopology("2x16x2")
	if err != nil {
		b.Fatal(err)
	}
	spec := cluster.Spec{Nodes: nodes, Classes: []cluster.Class{class}}.WithDefaults()
	c := spec.Classes[0]
	tr, err := trace.Generate("google2019", trace.Options{Seed: 7, Duration: d, Nodes: nodes, Load: load,
		NodeMemoryMB: c.MemoryMB, NodeCores: c.LogicalCPUs(), NodeCPUMHz: c.LogicalCPUs() * c.MHz, Racks: spec.Racks})
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

// BenchmarkGoogleDay5000 is `sim run -nodes 5000 -duration 24h -load 0.5`.
func BenchmarkGoogleDay5000(b *testing.B) {
	benchGoogle(b, googleConfig(b, 5000, 24*time.Hour, 0.5))
}
