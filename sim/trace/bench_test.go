package trace

import (
	"testing"
	"time"
)

// BenchmarkGenerate24h5000 generates 24 h for a 5,000-node cluster at the
// default load and reports the jobs and allocations made.
func BenchmarkGenerate24h5000(b *testing.B) {
	for _, kind := range Kinds {
		b.Run(kind, func(b *testing.B) {
			var jobs, allocs int
			for b.Loop() {
				tr, err := Generate(kind, Options{Seed: 1, Nodes: 5000, Duration: 24 * time.Hour})
				if err != nil {
					b.Fatal(err)
				}
				jobs, allocs = len(tr.Jobs), 0
				for i := range tr.Jobs {
					allocs += tr.Jobs[i].Count
				}
			}
			b.ReportMetric(float64(jobs), "jobs")
			b.ReportMetric(float64(allocs), "allocs")
		})
	}
}
