package execdriver

import (
	"context"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
)

// TaskStats samples the task every interval (min 100ms) until ctx ends or
// the task exits: its cgroups when it has some (exec), else its process
// group (raw_exec).
func (d *Driver) TaskStats(ctx context.Context, taskID string, interval time.Duration) (<-chan *base.TaskResourceUsage, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	s := newSampler(t.readUsage, t.state.StartedAt)
	return base.StreamUsage(ctx, t.exit.Done(), base.Every(max(interval, 100*time.Millisecond), s.Sample))
}

// usage converts two samples into a TaskResourceUsage.
func usage(u, prev groupUsage, elapsed time.Duration, now time.Time) *base.TaskResourceUsage {
	pct := func(cur, old uint64) float64 {
		if elapsed <= 0 || cur < old {
			return 0
		}
		return float64(ticksToDuration(cur-old)) / float64(elapsed) * 100
	}
	r := &base.TaskResourceUsage{Timestamp: now, Pids: u.pids}
	r.CPU.UserPercent = pct(u.uticks, prev.uticks)
	r.CPU.SystemPercent = pct(u.sticks, prev.sticks)
	r.CPU.Percent = r.CPU.UserPercent + r.CPU.SystemPercent
	r.CPU.UserTime = ticksToDuration(u.uticks)
	r.CPU.SystemTime = ticksToDuration(u.sticks)
	r.Memory.RSS, r.Memory.Swap = u.rss, u.swap
	return r
}
