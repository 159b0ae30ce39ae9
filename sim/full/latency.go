package full

import (
	"slices"
	"sync"
	"time"

	"github.com/nomadish/nomadish/sim/report"
)

// Latencies records, per allocation, the time from its job's submission
// to the server acknowledging it running (the report's PlacementLatency).
// Safe for concurrent use; the zero value is ready.
type Latencies struct {
	mu        sync.Mutex
	submitted map[string]time.Time // job ID -> when Job.Register was sent
	got       []time.Duration
}

// Submitted notes that job was submitted at t.
func (l *Latencies) Submitted(job string, t time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.submitted == nil {
		l.submitted = map[string]time.Time{}
	}
	l.submitted[job] = t
}

// Ran records n allocations of job acknowledged running at now; jobs
// never noted as submitted are left out.
func (l *Latencies) Ran(job string, n int, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	at, ok := l.submitted[job]
	if !ok {
		return
	}
	for range n {
		l.got = append(l.got, now.Sub(at))
	}
}

// Percentiles summarizes what was recorded (nearest rank).
func (l *Latencies) Percentiles() report.Percentiles {
	l.mu.Lock()
	d := slices.Clone(l.got)
	l.mu.Unlock()
	if len(d) == 0 {
		return report.Percentiles{}
	}
	slices.Sort(d)
	rank := func(p float64) time.Duration {
		i := int(p*float64(len(d))+0.999999) - 1
		return d[min(max(i, 0), len(d)-1)].Round(time.Millisecond)
	}
	return report.Percentiles{Count: len(d), P50: rank(0.50), P90: rank(0.90), P99: rank(0.99), Max: d[len(d)-1].Round(time.Millisecond)}
}
