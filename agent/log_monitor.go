package agent

import (
	"fmt"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"
)

// LogSinks is what GET /v1/agent/monitor needs of the agent's logger
// (hclog.InterceptLogger): a sink registered per request receives every
// line logged at or above its own level, whatever the agent's level.
type LogSinks interface {
	RegisterSink(sink hclog.SinkAdapter)
	DeregisterSink(sink hclog.SinkAdapter)
}

// monitorBuffer is how many lines a monitor request holds for a slow
// reader before it drops new ones.
const monitorBuffer = 512

// logMonitor is one monitor request's subscription to the agent's log: a
// sink formatting lines at its level into a bounded channel. Logging never
// blocks on it: a line that finds the channel full is dropped and counted.
type logMonitor struct {
	sinks   LogSinks
	sink    hclog.SinkAdapter
	lines   chan []byte
	dropped atomic.Int64
}

// newLogMonitor registers a sink at level (JSON lines with jsonFormat) on
// sinks; Stop deregisters it. The request's goroutine owns the monitor.
func newLogMonitor(sinks LogSinks, level hclog.Level, jsonFormat bool) *logMonitor {
	m := &logMonitor{sinks: sinks, lines: make(chan []byte, monitorBuffer)}
	m.sink = hclog.NewSinkAdapter(&hclog.LoggerOptions{Level: level, JSONFormat: jsonFormat, Output: m})
	sinks.RegisterSink(m.sink)
	return m
}

// Write receives one formatted line from the sink (called by the logging
// goroutine, under the intercept logger's lock): it never blocks.
func (m *logMonitor) Write(p []byte) (int, error) {
	line := append([]byte(nil), p...)
	select {
	case m.lines <- line:
	default:
		m.dropped.Add(1)
	}
	return len(p), nil
}

// takeDropped returns, and resets, the note about lines dropped since the
// last call ("" when none were).
func (m *logMonitor) takeDropped() string {
	if n := m.dropped.Swap(0); n > 0 {
		return fmt.Sprintf("[WARN]  monitor: dropped %d log lines: the reader was too slow\n", n)
	}
	return ""
}

// Stop deregisters the sink; no line arrives after it returns.
func (m *logMonitor) Stop() { m.sinks.DeregisterSink(m.sink) }
