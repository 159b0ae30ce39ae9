package telemetry

import (
	"io"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	armon "github.com/armon/go-metrics"
	gometrics "github.com/hashicorp/go-metrics"
)

func gauges(t *testing.T, tel *Telemetry) map[string]float32 {
	t.Helper()
	sum, err := tel.Summary()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float32{}
	for _, g := range sum.Gauges {
		out[g.Name] = g.Value
	}
	return out
}

func counters(t *testing.T, tel *Telemetry) map[string]int {
	t.Helper()
	sum, err := tel.Summary()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, c := range sum.Counters {
		out[c.Name] = c.Count
	}
	return out
}

// Each agent's sinks get what both go-metrics globals emit, with the
// service name, its own hostname prefix on gauges and its own filter;
// a closed agent gets nothing more.
func TestAgentsShareTheGlobalsWithTheirOwnSettings(t *testing.T) {
	a, err := New(Config{Hostname: "host-a", FilterDefault: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := New(Config{FilterDefault: true, PrefixFilter: []string{"-nomad.blocked", "+nomad.blocked.kept"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	gometrics.SetGauge([]string{"tel_test", "g"}, 7)
	armon.SetGauge([]string{"tel_test", "raftish"}, 8) // what raft emits through go-metrics/compat
	gometrics.IncrCounter([]string{"blocked", "x"}, 1)
	gometrics.IncrCounter([]string{"blocked", "kept", "y"}, 1)

	ga, gb := gauges(t, a), gauges(t, b)
	if ga["nomad.host-a.tel_test.g"] != 7 || ga["nomad.host-a.tel_test.raftish"] != 8 {
		t.Fatalf("agent a gauges: %v", ga)
	}
	if gb["nomad.tel_test.g"] != 7 || gb["nomad.tel_test.raftish"] != 8 {
		t.Fatalf("agent b gauges: %v", gb)
	}
	if gb["nomad.runtime.num_goroutines"] <= 0 {
		t.Fatalf("no runtime gauges: %v", gb)
	}
	ca, cb := counters(t, a), counters(t, b)
	if ca["nomad.blocked.x"] < 1 || ca["nomad.blocked.kept.y"] < 1 {
		t.Fatalf("agent a counters: %v", ca)
	}
	if _, ok := cb["nomad.blocked.x"]; ok || cb["nomad.blocked.kept.y"] < 1 {
		t.Fatalf("agent b counters (filtered): %v", cb)
	}

	b.Close()
	b.Close() // twice is fine
	gometrics.SetGauge([]string{"tel_test", "after"}, 1)
	if _, ok := gauges(t, b)["nomad.tel_test.after"]; ok {
		t.Fatal("a closed agent still receives metrics")
	}
	if gauges(t, a)["nomad.host-a.tel_test.after"] != 1 {
		t.Fatal("the open agent lost its metrics")
	}
}

func TestPrometheusHandler(t *testing.T) {
	off, err := New(Config{FilterDefault: true})
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()
	if off.PrometheusHandler() != nil {
		t.Fatal("a handler with prometheus_metrics off")
	}
	on, err := New(Config{FilterDefault: true, PrometheusMetrics: true})
	if err != nil {
		t.Fatal(err)
	}
	defer on.Close()
	gometrics.IncrCounterWithLabels([]string{"tel_test", "prom"}, 2, []gometrics.Label{{Name: "k", Value: "v"}})
	rec := httptest.NewRecorder()
	on.PrometheusHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/v1/metrics?format=prometheus", nil))
	body, _ := io.ReadAll(rec.Body)
	if !strings.Contains(string(body), `nomad_tel_test_prom{k="v"} 2`) || !strings.Contains(string(body), "go_goroutines") {
		t.Fatalf("prometheus output:\n%s", body)
	}
}

// statsd_address: metrics go out over UDP in statsd's format; Close stops
// the sink's goroutine.
func TestStatsdSink(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	tel, err := New(Config{FilterDefault: true, StatsdAddress: pc.LocalAddr().String()})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Close()
	gometrics.IncrCounter([]string{"tel_test", "statsd"}, 1)
	buf := make([]byte, 65536)
	for {
		if err := pc.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
			t.Fatal(err)
		}
		n, _, err := pc.ReadFrom(buf)
		if err != nil {
			t.Fatalf("no statsd packet with the counter: %v", err)
		}
		if strings.Contains(string(buf[:n]), "nomad.tel_test.statsd:1.000000|c") {
			return
		}
	}
}

// BenchmarkEmit is the cost a hot path pays per metric with an agent's
// in-memory and Prometheus sinks attached.
func BenchmarkEmit(b *testing.B) {
	tel, err := New(Config{FilterDefault: true, PrometheusMetrics: true})
	if err != nil {
		b.Fatal(err)
	}
	defer tel.Close()
	key := []string{"bench", "counter"}
	sample := []string{"bench", "sample"}
	b.Run("IncrCounter", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			gometrics.IncrCounter(key, 1)
		}
	})
	b.Run("MeasureSince", func(b *testing.B) {
		start := time.Now()
		for i := 0; i < b.N; i++ {
			gometrics.MeasureSince(sample, start)
		}
	})
}
