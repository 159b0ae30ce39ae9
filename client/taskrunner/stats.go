package taskrunner

import (
	"context"
	"sync"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
)

// StatsInterval is how often the driver samples a running task's usage
// (Nomad's default telemetry collection_interval).
const StatsInterval = time.Second

// statsRetryMax bounds the wait before asking the driver again for a
// stats stream that ended while the task runs (the plugin died, or a
// transient error).
const statsRetryMax = 5 * time.Second

// statsStatter is the optional driver method the stats collector calls
// (base.Driver has it; the pluginmgr proxy forwards it).
type statsStatter interface {
	TaskStats(ctx context.Context, taskID string, interval time.Duration) (<-chan *base.TaskResourceUsage, error)
}

// statsTracker holds the latest usage sample of the running task instance
// and the collector goroutine reading it from the driver. Run's goroutine
// starts and stops collectors; the collector writes latest; any goroutine
// reads it. Guarded by mu.
type statsTracker struct {
	mu     sync.Mutex
	latest *base.TaskResourceUsage
	cancel context.CancelFunc // stops the current collector; nil when none
	done   chan struct{}      // closed when the current collector returned
	kick   chan struct{}      // cap 1: retry the stream now (after re-attach)
}

// Stats returns the latest resource usage sample of the running task, or
// nil when the task is not running or no sample arrived yet. The caller
// owns the returned copy. Safe from any goroutine.
func (tr *TaskRunner) Stats() *base.TaskResourceUsage {
	tr.stats.mu.Lock()
	defer tr.stats.mu.Unlock()
	if tr.stats.latest == nil {
		return nil
	}
	u := *tr.stats.latest
	return &u
}

// startStats starts collecting the usage of task instance id, replacing
// any previous collector. Called from Run's goroutine once the task runs
// (started or recovered). A driver without TaskStats gives no samples.
func (tr *TaskRunner) startStats(id string) {
	tr.stopStats()
	s, ok := tr.cfg.Driver.(statsStatter)
	if !ok {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done, kick := make(chan struct{}), make(chan struct{}, 1)
	tr.stats.mu.Lock()
	tr.stats.cancel, tr.stats.done, tr.stats.kick = cancel, done, kick
	tr.stats.mu.Unlock()
	go func() {
		defer close(done)
		tr.collectStats(ctx, s, id, kick)
	}()
}

// stopStats stops the collector, waits for it, and forgets the latest
// sample (a task that does not run has no usage). Called from Run's
// goroutine when the task exits, is killed, or the runner detaches.
func (tr *TaskRunner) stopStats() {
	tr.stats.mu.Lock()
	cancel, done := tr.stats.cancel, tr.stats.done
	tr.stats.cancel, tr.stats.done, tr.stats.kick = nil, nil, nil
	tr.stats.latest = nil
	tr.stats.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-done
	tr.stats.mu.Lock()
	tr.stats.latest = nil // a last sample may have landed before cancel
	tr.stats.mu.Unlock()
}

// kickStats makes the collector ask the driver for a new stream at once:
// called after a re-attach through a relaunched plugin, whose old stream
// ended with the old process.
func (tr *TaskRunner) kickStats() {
	tr.stats.mu.Lock()
	kick := tr.stats.kick
	tr.stats.mu.Unlock()
	if kick == nil {
		return
	}
	select {
	case kick <- struct{}{}:
	default:
	}
}

// collectStats keeps the latest sample of task id until ctx ends. When the
// driver's stream ends or cannot be opened while the task still runs (the
// plugin was relaunched), it asks again after a backoff (1/4 s doubling to
// statsRetryMax, reset by a sample) or at once when kicked.
func (tr *TaskRunner) collectStats(ctx context.Context, s statsStatter, id string, kick <-chan struct{}) {
	backoff := statsRetryMax / 20
	for ctx.Err() == nil {
		ch, err := s.TaskStats(ctx, id, StatsInterval)
		if err == nil {
			for u := range ch {
				if u == nil {
					continue
				}
				backoff = statsRetryMax / 20
				tr.stats.mu.Lock()
				if ctx.Err() == nil {
					tr.stats.latest = u
				}
				tr.stats.mu.Unlock()
			}
		} else {
			tr.logger.Debug("task stats unavailable", "error", err)
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
		case <-kick:
		case <-t.C:
		}
		t.Stop()
		backoff = min(backoff*2, statsRetryMax)
	}
}
