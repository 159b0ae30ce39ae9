package agent

import (
	"net/http"
	"runtime"
	"time"
)

// metricGauge is one gauge of api.MetricsSummary.
type metricGauge struct {
	Name   string
	Value  float32
	Labels map[string]string
}

// metricsSummary is api.MetricsSummary (go-metrics' in-memory summary).
type metricsSummary struct {
	Timestamp string
	Gauges    []metricGauge
	Points    []any
	Counters  []any
	Samples   []any
}

// metrics serves GET /v1/metrics: the Go runtime gauges Nomad reports under
// nomad.runtime.* (JSON only; ?format=prometheus is not supported yet).
func (s *httpServer) metrics(w http.ResponseWriter, r *http.Request) (any, error) {
	if f := r.URL.Query().Get("format"); f != "" && f != "json" {
		return nil, badRequest("unsupported metrics format %q", f)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	g := func(name string, v float64) metricGauge {
		return metricGauge{Name: "nomad.runtime." + name, Value: float32(v), Labels: map[string]string{}}
	}
	return metricsSummary{
		Timestamp: time.Now().UTC().Format("2006-01-02 15:04:05 -0700 MST"),
		Gauges: []metricGauge{
			g("num_goroutines", float64(runtime.NumGoroutine())),
			g("alloc_bytes", float64(ms.Alloc)),
			g("sys_bytes", float64(ms.Sys)),
			g("heap_objects", float64(ms.HeapObjects)),
			g("malloc_count", float64(ms.Mallocs)),
			g("free_count", float64(ms.Frees)),
			g("total_gc_runs", float64(ms.NumGC)),
			g("total_gc_pause_ns", float64(ms.PauseTotalNs)),
		},
		Points: []any{}, Counters: []any{}, Samples: []any{},
	}, nil
}
