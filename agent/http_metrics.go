package agent

import (
	"net/http"
	"runtime"
	"time"

	gometrics "github.com/hashicorp/go-metrics"
)

// MetricsSource is what GET /v1/metrics reads: the agent's telemetry
// (internal/telemetry.Telemetry).
type MetricsSource interface {
	// Summary is the in-memory sink's last finished interval.
	Summary() (gometrics.MetricsSummary, error)
	// PrometheusHandler is nil when prometheus_metrics is off.
	PrometheusHandler() http.Handler
}

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

// metrics serves GET /v1/metrics: the in-memory sink's summary as JSON
// (api.MetricsSummary), or with ?format=prometheus the Prometheus text
// format (400 "Prometheus is not enabled" without prometheus_metrics, as
// Nomad).
func (s *httpServer) metrics(w http.ResponseWriter, r *http.Request) (any, error) {
	f := r.URL.Query().Get("format")
	if f != "" && f != "json" && f != "prometheus" {
		return nil, badRequest("unsupported metrics format %q", f)
	}
	if f == "prometheus" {
		var h http.Handler
		if s.Metrics != nil {
			h = s.Metrics.PrometheusHandler()
		}
		if h == nil {
			return nil, badRequest("Prometheus is not enabled")
		}
		h.ServeHTTP(w, r)
		return nil, nil
	}
	if s.Metrics != nil {
		sum, err := s.Metrics.Summary()
		if err != nil {
			return nil, err
		}
		return sum, nil
	}
	return runtimeSummary(), nil
}

// runtimeSummary is the Go runtime gauges Nomad reports under
// nomad.runtime.*, for an HTTP server built without telemetry (tests).
func runtimeSummary() metricsSummary {
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
	}
}
