package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	gometrics "github.com/hashicorp/go-metrics"
	"github.com/hashicorp/nomad/api"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/nomadish/nomadish/agent/config"
)

// metricsAgent is devAgent with the telemetry block this file needs: no
// hostname in gauge names, a short collection interval.
func metricsAgent(t *testing.T) *api.Client {
	t.Helper()
	cfg := config.DevConfig()
	cfg.Name = "metrics"
	cfg.Ports = config.Ports{}
	cfg.Telemetry.DisableHostname = true
	cfg.Telemetry.CollectionInterval = 100 * time.Millisecond
	logger := hclog.New(&hclog.LoggerOptions{Name: "agent", Level: hclog.Info, Output: t.Output()})
	a, err := New(cfg, logger, WithPluginExecutable(nomadishBinary(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Shutdown() })
	c, err := api.NewClient(&api.Config{Address: "http://" + a.HTTPAddr()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// scrape reads /v1/metrics?format=prometheus through the official client
// and parses it with Prometheus' text parser.
func scrape(c *api.Client) (map[string]*dto.MetricFamily, error) {
	b, err := c.Operator().Metrics(&api.QueryOptions{Params: map[string]string{"format": "prometheus"}})
	if err != nil {
		return nil, err
	}
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("parsing the Prometheus output: %w", err)
	}
	return fams, nil
}

// find returns the first metric of family name (of type typ) whose labels
// include want, or an error saying what is missing.
func find(fams map[string]*dto.MetricFamily, name string, typ dto.MetricType, want map[string]string) (*dto.Metric, error) {
	f, ok := fams[name]
	if !ok {
		return nil, fmt.Errorf("no family %s", name)
	}
	if f.GetType() != typ {
		return nil, fmt.Errorf("%s is a %v, want %v", name, f.GetType(), typ)
	}
next:
	for _, m := range f.GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if got[k] != v {
				continue next
			}
		}
		return m, nil
	}
	return nil, fmt.Errorf("no %s with labels %v", name, want)
}

// TestMetricsPrometheusAfterAJob runs a job on a dev agent and scrapes
// /v1/metrics?format=prometheus: the server's, raft's, the client's and the
// runtime's families are there with Nomad's names, types and labels; the
// JSON form decodes into the official client's MetricsSummary.
func TestMetricsPrometheusAfterAJob(t *testing.T) {
	c := metricsAgent(t)
	job := api.NewServiceJob("metrics-job", "metrics-job", "global", 50)
	job.Datacenters = []string{"dc1"}
	task := api.NewTask("sleeper", "raw_exec").SetConfig("command", "/bin/sleep").SetConfig("args", []string{"300"})
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	waitFor(t, 15*time.Second, "a leader and raw_exec", func() error {
		nodes, _, err := c.Nodes().List(nil)
		if err != nil || len(nodes) != 1 || nodes[0].Drivers["raw_exec"] == nil || !nodes[0].Drivers["raw_exec"].Healthy {
			return fmt.Errorf("nodes %v: %v", nodes, err)
		}
		return nil
	})
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	jobLabels := map[string]string{"job": "metrics-job", "task_group": "g", "namespace": "default"}
	taskLabels := map[string]string{"job": "metrics-job", "task_group": "g", "namespace": "default", "task": "sleeper"}
	gauge, counter, summary := dto.MetricType_GAUGE, dto.MetricType_COUNTER, dto.MetricType_SUMMARY
	var fams map[string]*dto.MetricFamily
	waitFor(t, 30*time.Second, "the job's metrics", func() error {
		var err error
		if fams, err = scrape(c); err != nil {
			return err
		}
		if m, err := find(fams, "nomad_nomad_job_summary_running", gauge, jobLabels); err != nil {
			return err
		} else if v := m.GetGauge().GetValue(); v != 1 {
			return fmt.Errorf("job_summary running = %v", v)
		}
		if _, err := find(fams, "nomad_client_host_cpu_total", gauge, nil); err != nil {
			return err
		}
		if m, err := find(fams, "nomad_client_allocs_memory_rss", gauge, taskLabels); err != nil {
			return err
		} else if m.GetGauge().GetValue() <= 0 {
			return fmt.Errorf("task rss %v", m.GetGauge().GetValue())
		}
		return nil
	})
	for _, c := range []struct {
		name string
		typ  dto.MetricType
		ok   func(*dto.Metric) bool
	}{
		{"nomad_nomad_plan_apply", summary, func(m *dto.Metric) bool { return m.GetSummary().GetSampleCount() > 0 }},
		{"nomad_nomad_plan_evaluate", summary, func(m *dto.Metric) bool { return m.GetSummary().GetSampleCount() > 0 }},
		{"nomad_nomad_plan_submit", summary, func(m *dto.Metric) bool { return m.GetSummary().GetSampleCount() > 0 }},
		{"nomad_nomad_worker_dequeue_eval", summary, func(m *dto.Metric) bool { return m.GetSummary().GetSampleCount() > 0 }},
		{"nomad_nomad_worker_invoke_scheduler_service", summary, func(m *dto.Metric) bool { return m.GetSummary().GetSampleCount() > 0 }},
		{"nomad_raft_apply", counter, func(m *dto.Metric) bool { return m.GetCounter().GetValue() > 0 }},
		{"nomad_raft_commitTime", summary, func(m *dto.Metric) bool { return m.GetSummary().GetSampleCount() > 0 }},
		{"nomad_nomad_rpc_request", counter, func(m *dto.Metric) bool { return m.GetCounter().GetValue() > 0 }},
		{"nomad_nomad_heartbeat_active", gauge, func(m *dto.Metric) bool { return m.GetGauge().GetValue() >= 1 }},
		{"nomad_nomad_plan_queue_depth", gauge, func(m *dto.Metric) bool { return m.GetGauge().GetValue() >= 0 }},
		{"nomad_nomad_broker_total_ready", gauge, func(m *dto.Metric) bool { return m.GetGauge().GetValue() >= 0 }},
		{"nomad_nomad_broker_total_unacked", gauge, func(m *dto.Metric) bool { return m.GetGauge().GetValue() >= 0 }},
		{"nomad_nomad_broker_total_pending", gauge, func(m *dto.Metric) bool { return m.GetGauge().GetValue() >= 0 }},
		{"nomad_nomad_broker_total_waiting", gauge, func(m *dto.Metric) bool { return m.GetGauge().GetValue() >= 0 }},
		{"nomad_nomad_blocked_evals_total_blocked", gauge, func(m *dto.Metric) bool { return m.GetGauge().GetValue() >= 0 }},
		{"nomad_client_host_memory_total", gauge, func(m *dto.Metric) bool { return m.GetGauge().GetValue() > 0 }},
		{"nomad_client_host_disk_size", gauge, func(m *dto.Metric) bool { return m.GetGauge().GetValue() > 0 }},
		{"nomad_client_host_cpu_total", gauge, func(m *dto.Metric) bool { return m.GetGauge().GetValue() >= 0 }},
		{"nomad_runtime_num_goroutines", gauge, func(m *dto.Metric) bool { return m.GetGauge().GetValue() > 0 }},
		{"nomad_runtime_alloc_bytes", gauge, func(m *dto.Metric) bool { return m.GetGauge().GetValue() > 0 }},
	} {
		m, err := find(fams, c.name, c.typ, nil)
		if err != nil {
			t.Error(err)
			continue
		}
		if !c.ok(m) {
			t.Errorf("%s: unexpected value %v", c.name, m)
		}
	}
	if _, err := find(fams, "nomad_nomad_broker_ready", gauge, map[string]string{"type": "service"}); err != nil {
		t.Error(err)
	}
	if _, err := find(fams, "nomad_client_allocs_cpu_total_percent", gauge, taskLabels); err != nil {
		t.Error(err)
	}
	for _, name := range []string{"nomad_nomad_job_summary_queued", "nomad_nomad_job_summary_complete", "nomad_nomad_job_summary_failed",
		"nomad_nomad_job_summary_starting", "nomad_nomad_job_summary_lost"} {
		if m, err := find(fams, name, gauge, jobLabels); err != nil {
			t.Error(err)
		} else if v := m.GetGauge().GetValue(); v != 0 {
			t.Errorf("%s = %v, want 0", name, v)
		}
	}

	// The JSON form is the official client's MetricsSummary.
	b, err := c.Operator().Metrics(nil)
	if err != nil {
		t.Fatal(err)
	}
	var sum api.MetricsSummary
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	names := map[string]bool{}
	for _, g := range sum.Gauges {
		names[g.Name] = true
	}
	if !names["nomad.runtime.num_goroutines"] || sum.Timestamp == "" {
		t.Fatalf("JSON summary gauges: %v", names)
	}
	if s, _, err := c.Operator().MetricsSummary(nil); err != nil || len(s.Gauges) == 0 {
		t.Fatalf("MetricsSummary: %+v, %v", s, err)
	}
}

// stubMetrics is a MetricsSource: a fixed summary, Prometheus off.
type stubMetrics struct{ sum gometrics.MetricsSummary }

func (s stubMetrics) Summary() (gometrics.MetricsSummary, error) { return s.sum, nil }
func (s stubMetrics) PrometheusHandler() http.Handler            { return nil }

// Without prometheus_metrics, ?format=prometheus is Nomad's 400; the JSON
// comes from the agent's in-memory sink; an unknown format is a 400.
func TestMetricsFormats(t *testing.T) {
	sum := gometrics.MetricsSummary{Timestamp: "now", Gauges: []gometrics.GaugeValue{{Name: "nomad.nomad.x", Value: 3, DisplayLabels: map[string]string{"a": "b"}}}}
	ts := httptest.NewServer(newHTTPServer(httpDeps{RPC: newFakeRPC(), Metrics: stubMetrics{sum}}))
	defer ts.Close()
	code, body := get(t, ts.URL+"/v1/metrics?format=prometheus")
	if code != http.StatusBadRequest || !strings.Contains(body, "Prometheus is not enabled") {
		t.Fatalf("prometheus off: %d %q", code, body)
	}
	if code, body := get(t, ts.URL+"/v1/metrics?format=xml"); code != http.StatusBadRequest {
		t.Fatalf("format=xml: %d %q", code, body)
	}
	c, err := api.NewClient(&api.Config{Address: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := c.Operator().MetricsSummary(nil)
	if err != nil || len(got.Gauges) != 1 || got.Gauges[0].Name != "nomad.nomad.x" || got.Gauges[0].Value != 3 || got.Gauges[0].DisplayLabels["a"] != "b" {
		t.Fatalf("summary %+v, %v", got, err)
	}
}
