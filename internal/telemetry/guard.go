package telemetry

import (
	"sync"

	gometrics "github.com/hashicorp/go-metrics"
)

// guardedSink wraps a sink with a Shutdown (statsd, statsite) whose
// emitting methods must not run once it is shut down (they would send on
// its closed queue): an emitter that read the hub's sinks just before the
// agent detached them may still call in, and is turned away.
type guardedSink struct {
	mu     sync.RWMutex
	closed bool
	s      gometrics.MetricSink
}

func (g *guardedSink) do(f func(gometrics.MetricSink)) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if !g.closed {
		f(g.s)
	}
}

// Shutdown stops the sink once; later emissions are dropped.
func (g *guardedSink) Shutdown() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return
	}
	g.closed = true
	if ss, ok := g.s.(gometrics.ShutdownSink); ok {
		ss.Shutdown()
	}
}

func (g *guardedSink) SetGauge(key []string, val float32) {
	g.do(func(s gometrics.MetricSink) { s.SetGauge(key, val) })
}
func (g *guardedSink) SetGaugeWithLabels(key []string, val float32, labels []gometrics.Label) {
	g.do(func(s gometrics.MetricSink) { s.SetGaugeWithLabels(key, val, labels) })
}
func (g *guardedSink) EmitKey(key []string, val float32) {
	g.do(func(s gometrics.MetricSink) { s.EmitKey(key, val) })
}
func (g *guardedSink) IncrCounter(key []string, val float32) {
	g.do(func(s gometrics.MetricSink) { s.IncrCounter(key, val) })
}
func (g *guardedSink) IncrCounterWithLabels(key []string, val float32, labels []gometrics.Label) {
	g.do(func(s gometrics.MetricSink) { s.IncrCounterWithLabels(key, val, labels) })
}
func (g *guardedSink) AddSample(key []string, val float32) {
	g.do(func(s gometrics.MetricSink) { s.AddSample(key, val) })
}
func (g *guardedSink) AddSampleWithLabels(key []string, val float32, labels []gometrics.Label) {
	g.do(func(s gometrics.MetricSink) { s.AddSampleWithLabels(key, val, labels) })
}
