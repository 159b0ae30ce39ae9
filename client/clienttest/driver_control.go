package clienttest

import (
	"context"
	"fmt"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
)

// fakeControl is the FakeDriver's state for signals and stats, guarded by
// the driver's mu.
type fakeControl struct {
	// streams are the open TaskStats streams; closing one ends it as a
	// plugin crash does.
	streams map[chan struct{}]bool
	// statsCalls counts TaskStats calls per task ID.
	statsCalls map[string]int
}

// FakeRSS is the RSS every fake stats sample reports, in bytes.
const FakeRSS = 4 << 20

// SignalTask records "signal <id> <signal>". Unknown signals are an
// error; an unknown or exited task is base.ErrTaskNotFound.
func (d *FakeDriver) SignalTask(id string, signal string) error {
	if _, err := base.ParseSignal(signal, 0); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	t := d.tasks[id]
	if t == nil || t.result != nil {
		return fmt.Errorf("task %q: %w", id, base.ErrTaskNotFound)
	}
	d.record("signal %s %s", id, signal)
	return nil
}

// TaskStats sends a sample (RSS FakeRSS, 5% CPU) at once and then every
// interval until ctx ends, the task exits, or DropStatsStreams is called.
func (d *FakeDriver) TaskStats(ctx context.Context, id string, interval time.Duration) (<-chan *base.TaskResourceUsage, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ctl.statsCalls == nil {
		d.ctl.statsCalls, d.ctl.streams = map[string]int{}, map[chan struct{}]bool{}
	}
	d.ctl.statsCalls[id]++
	t := d.tasks[id]
	if t == nil {
		return nil, fmt.Errorf("task %q: %w", id, base.ErrTaskNotFound)
	}
	drop := make(chan struct{})
	d.ctl.streams[drop] = true
	ch := make(chan *base.TaskResourceUsage)
	go func() {
		defer close(ch)
		defer d.forgetStream(drop)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			u := &base.TaskResourceUsage{Timestamp: time.Now(), Pids: 1,
				CPU: base.CPUUsage{Percent: 5, UserPercent: 4, SystemPercent: 1}, Memory: base.MemoryUsage{RSS: FakeRSS}}
			if !send(ctx, ch, u, t.done, drop) || !wait(ctx, tick.C, t.done, drop) {
				return
			}
		}
	}()
	return ch, nil
}

func (d *FakeDriver) forgetStream(drop chan struct{}) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.ctl.streams, drop)
}

// DropStatsStreams ends every open TaskStats stream without ending its
// task, as a plugin crash does.
func (d *FakeDriver) DropStatsStreams() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for drop := range d.ctl.streams {
		close(drop)
		delete(d.ctl.streams, drop)
	}
}

// StatsCalls returns how many times TaskStats was called for task id.
func (d *FakeDriver) StatsCalls(id string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ctl.statsCalls[id]
}

// OpenStatsStreams returns how many TaskStats streams are open.
func (d *FakeDriver) OpenStatsStreams() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.ctl.streams)
}

// send delivers u unless ctx, done or drop ends first (then false).
func send(ctx context.Context, ch chan<- *base.TaskResourceUsage, u *base.TaskResourceUsage, done, drop <-chan struct{}) bool {
	select {
	case ch <- u:
		return true
	case <-ctx.Done():
	case <-done:
	case <-drop:
	}
	return false
}

// wait waits for the next tick unless ctx, done or drop ends first (then false).
func wait(ctx context.Context, tick <-chan time.Time, done, drop <-chan struct{}) bool {
	select {
	case <-tick:
		return true
	case <-ctx.Done():
	case <-done:
	case <-drop:
	}
	return false
}
