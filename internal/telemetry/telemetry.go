package telemetry

import (
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"time"

	gometrics "github.com/hashicorp/go-metrics"
	gmprom "github.com/hashicorp/go-metrics/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// ErrPrometheusDisabled is Summary's answer for the Prometheus format when
// the agent's telemetry block has prometheus_metrics off.
var ErrPrometheusDisabled = errors.New("Prometheus is not enabled")

// Config is what an agent's telemetry block asks for (agent/config's
// Telemetry, with the hostname resolved).
type Config struct {
	// Hostname prefixes gauges ("" for none: disable_hostname).
	Hostname           string
	CollectionInterval time.Duration // runtime sampling; 1 s when zero
	PrometheusMetrics  bool
	StatsdAddress      string
	StatsiteAddress    string
	FilterDefault      bool
	PrefixFilter       []string // "+prefix" keeps, "-prefix" drops
}

// inmemInterval and inmemRetain are Nomad's in-memory sink settings: the
// summary /v1/metrics shows is the last finished 10 s interval.
const (
	inmemInterval = 10 * time.Second
	inmemRetain   = time.Minute
	// promExpiration is go-metrics' default: a series not updated for a
	// minute leaves the Prometheus output (a stopped job's gauges).
	promExpiration = time.Minute
)

// Telemetry is one agent's sinks, attached to the process's go-metrics hub
// from New until Close, and the goroutine sampling the Go runtime.
type Telemetry struct {
	inmem *gometrics.InmemSink
	reg   *prometheus.Registry // nil with prometheus_metrics off
	sink  *agentSink
	stop  chan struct{}
	wg    sync.WaitGroup
	once  sync.Once
}

// New builds an agent's sinks from cfg, attaches them and starts sampling
// the runtime every CollectionInterval. The caller must Close it.
func New(cfg Config) (*Telemetry, error) {
	setupGlobals()
	t := &Telemetry{inmem: gometrics.NewInmemSink(inmemInterval, inmemRetain), stop: make(chan struct{})}
	fan := gometrics.FanoutSink{t.inmem}
	if cfg.PrometheusMetrics {
		t.reg = prometheus.NewRegistry()
		ps, err := gmprom.NewPrometheusSinkFrom(gmprom.PrometheusOpts{Expiration: promExpiration, Registerer: t.reg})
		if err != nil {
			return nil, fmt.Errorf("telemetry: starting the Prometheus sink: %w", err)
		}
		t.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		fan = append(fan, ps)
	}
	if cfg.StatsdAddress != "" {
		s, err := gometrics.NewStatsdSink(cfg.StatsdAddress)
		if err != nil {
			return nil, fmt.Errorf("telemetry: statsd_address %q: %w", cfg.StatsdAddress, err)
		}
		fan = append(fan, &guardedSink{s: s})
	}
	if cfg.StatsiteAddress != "" {
		s, err := gometrics.NewStatsiteSink(cfg.StatsiteAddress)
		if err != nil {
			shutdown(fan)
			return nil, fmt.Errorf("telemetry: statsite_address %q: %w", cfg.StatsiteAddress, err)
		}
		fan = append(fan, &guardedSink{s: s})
	}
	t.sink = &agentSink{host: cfg.Hostname, filterDefault: cfg.FilterDefault, rules: parseRules(cfg.PrefixFilter), out: fan}
	theHub.attach(t.sink)
	interval := cfg.CollectionInterval
	if interval <= 0 {
		interval = time.Second
	}
	sampleRuntime(&runtimeState{})
	t.wg.Add(1)
	go t.runtimeLoop(interval)
	return t, nil
}

func shutdown(fan gometrics.FanoutSink) {
	for _, s := range fan {
		if ss, ok := s.(gometrics.ShutdownSink); ok {
			ss.Shutdown()
		}
	}
}

// Close detaches the sinks, stops the runtime sampling and shuts statsd
// and statsite down (go-metrics' own flush goroutines end once they see
// their queue closed; what was queued but not yet sent is dropped). Safe
// to call twice.
func (t *Telemetry) Close() {
	t.once.Do(func() {
		theHub.detach(t.sink)
		close(t.stop)
		t.wg.Wait()
		shutdown(t.sink.out)
	})
}

// Summary is the in-memory sink's last finished interval (go-metrics'
// MetricsSummary, the JSON of GET /v1/metrics and api.MetricsSummary).
func (t *Telemetry) Summary() (gometrics.MetricsSummary, error) {
	v, err := t.inmem.DisplayMetrics(nil, nil)
	if err != nil {
		return gometrics.MetricsSummary{}, fmt.Errorf("telemetry: reading the in-memory sink: %w", err)
	}
	return v.(gometrics.MetricsSummary), nil
}

// PrometheusHandler serves the agent's metrics in Prometheus' text format,
// or is nil with prometheus_metrics off.
func (t *Telemetry) PrometheusHandler() http.Handler {
	if t.reg == nil {
		return nil
	}
	return promhttp.HandlerFor(t.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

func (t *Telemetry) runtimeLoop(interval time.Duration) {
	defer t.wg.Done()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	st := &runtimeState{}
	for {
		select {
		case <-t.stop:
			return
		case <-tick.C:
			sampleRuntime(st)
		}
	}
}

// runtimeState is what the sampler remembers between samples.
type runtimeState struct{ lastNumGC uint32 }

// sampleRuntime emits Nomad's nomad.runtime.* gauges (go-metrics'
// EnableRuntimeMetrics names) and the GC pauses since the last sample.
func sampleRuntime(st *runtimeState) {
	gometrics.SetGauge([]string{"runtime", "num_goroutines"}, float32(runtime.NumGoroutine()))
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	for _, g := range []struct {
		name string
		v    uint64
	}{
		{"alloc_bytes", ms.Alloc}, {"sys_bytes", ms.Sys}, {"malloc_count", ms.Mallocs}, {"free_count", ms.Frees},
		{"heap_objects", ms.HeapObjects}, {"total_gc_pause_ns", ms.PauseTotalNs}, {"total_gc_runs", uint64(ms.NumGC)},
	} {
		gometrics.SetGauge([]string{"runtime", g.name}, float32(g.v))
	}
	num := ms.NumGC
	if num < st.lastNumGC {
		st.lastNumGC = 0
	}
	if d := num - st.lastNumGC; st.lastNumGC > 0 && d > 0 {
		if d >= 256 {
			d = 255
		}
		for i := num - d; i < num; i++ {
			gometrics.AddSample([]string{"runtime", "gc_pause_ns"}, float32(ms.PauseNs[i%256]))
		}
	}
	st.lastNumGC = num
}
