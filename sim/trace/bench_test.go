package trace

import (
	"bytes"
	"io"
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

// BenchmarkReadWrite writes and reads back a google2019 trace of 1,000
// nodes x 24 h (about 48k jobs) in each format.
func BenchmarkReadWrite(b *testing.B) {
	tr, err := Generate("google2019", Options{Seed: 1, Nodes: 1000})
	if err != nil {
		b.Fatal(err)
	}
	for _, format := range []string{FormatJSON, FormatCSV} {
		var buf bytes.Buffer
		if err := Write(&buf, tr, format); err != nil {
			b.Fatal(err)
		}
		data := buf.Bytes()
		b.Run("write-"+format, func(b *testing.B) {
			for b.Loop() {
				if err := Write(io.Discard, tr, format); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(tr.Jobs)), "jobs")
		})
		b.Run("read-"+format, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Parse("t", format, data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(tr.Jobs)), "jobs")
		})
	}
}
