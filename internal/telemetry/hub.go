package telemetry

import (
	"sync"
	"sync/atomic"
	"time"

	armon "github.com/armon/go-metrics"
	gometrics "github.com/hashicorp/go-metrics"
)

// ServiceName prefixes every metric, as Nomad's ("nomad.nomad.broker…",
// "nomad.raft.apply").
const ServiceName = "nomad"

// hubSinks is the hub's current sinks, an immutable slice replaced on each
// attach and detach, so emitting takes no lock.
type hubSinks []gometrics.MetricSink

// hub is the one sink go-metrics' globals point at.
type hub struct {
	mu    sync.Mutex // serializes attach and detach
	sinks atomic.Pointer[hubSinks]
}

var (
	theHub    = &hub{}
	setupOnce sync.Once
)

// setupGlobals points go-metrics' globals (both modules) at the hub, once
// per process. Runtime profiling stays off: each agent samples the runtime
// on its own goroutine, which stops with it.
func setupGlobals() {
	setupOnce.Do(func() {
		conf := gometrics.DefaultConfig(ServiceName)
		conf.EnableHostname, conf.EnableRuntimeMetrics = false, false
		_, _ = gometrics.NewGlobal(conf, theHub) // New never fails
		aconf := armon.DefaultConfig(ServiceName)
		aconf.EnableHostname, aconf.EnableRuntimeMetrics = false, false
		_, _ = armon.NewGlobal(aconf, armonAdapter{theHub})
	})
}

func (h *hub) attach(s gometrics.MetricSink) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var next hubSinks
	if cur := h.sinks.Load(); cur != nil {
		next = append(next, *cur...)
	}
	next = append(next, s)
	h.sinks.Store(&next)
}

func (h *hub) detach(s gometrics.MetricSink) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var next hubSinks
	if cur := h.sinks.Load(); cur != nil {
		for _, x := range *cur {
			if x != s {
				next = append(next, x)
			}
		}
	}
	h.sinks.Store(&next)
}

func (h *hub) each(f func(gometrics.MetricSink)) {
	if cur := h.sinks.Load(); cur != nil {
		for _, s := range *cur {
			f(s)
		}
	}
}

func (h *hub) SetGauge(key []string, val float32) { h.SetGaugeWithLabels(key, val, nil) }
func (h *hub) SetGaugeWithLabels(key []string, val float32, labels []gometrics.Label) {
	h.each(func(s gometrics.MetricSink) { s.SetGaugeWithLabels(key, val, labels) })
}
func (h *hub) EmitKey(key []string, val float32) {
	h.each(func(s gometrics.MetricSink) { s.EmitKey(key, val) })
}
func (h *hub) IncrCounter(key []string, val float32) { h.IncrCounterWithLabels(key, val, nil) }
func (h *hub) IncrCounterWithLabels(key []string, val float32, labels []gometrics.Label) {
	h.each(func(s gometrics.MetricSink) { s.IncrCounterWithLabels(key, val, labels) })
}
func (h *hub) AddSample(key []string, val float32) { h.AddSampleWithLabels(key, val, nil) }
func (h *hub) AddSampleWithLabels(key []string, val float32, labels []gometrics.Label) {
	h.each(func(s gometrics.MetricSink) { s.AddSampleWithLabels(key, val, labels) })
}

// armonAdapter receives what armon/go-metrics' global emits (raft, serf,
// memberlist) and hands it to the hub.
type armonAdapter struct{ h *hub }

func labelsOf(ls []armon.Label) []gometrics.Label {
	if len(ls) == 0 {
		return nil
	}
	out := make([]gometrics.Label, len(ls))
	for i, l := range ls {
		out[i] = gometrics.Label{Name: l.Name, Value: l.Value}
	}
	return out
}

func (a armonAdapter) SetGauge(key []string, val float32) { a.h.SetGaugeWithLabels(key, val, nil) }
func (a armonAdapter) SetGaugeWithLabels(key []string, val float32, labels []armon.Label) {
	a.h.SetGaugeWithLabels(key, val, labelsOf(labels))
}
func (a armonAdapter) EmitKey(key []string, val float32) { a.h.EmitKey(key, val) }
func (a armonAdapter) IncrCounter(key []string, val float32) {
	a.h.IncrCounterWithLabels(key, val, nil)
}
func (a armonAdapter) IncrCounterWithLabels(key []string, val float32, labels []armon.Label) {
	a.h.IncrCounterWithLabels(key, val, labelsOf(labels))
}
func (a armonAdapter) AddSample(key []string, val float32) { a.h.AddSampleWithLabels(key, val, nil) }
func (a armonAdapter) AddSampleWithLabels(key []string, val float32, labels []armon.Label) {
	a.h.AddSampleWithLabels(key, val, labelsOf(labels))
}

// MeasureSince records the milliseconds since start as a sample under key
// (what go-metrics' MeasureSince does), for callers holding their own clock.
func MeasureSince(key []string, start, now time.Time, labels ...gometrics.Label) {
	gometrics.AddSampleWithLabels(key, float32(now.Sub(start).Seconds()*1000), labels)
}
