package docker

import (
	"context"
	"encoding/json"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/nomadish/nomadish/drivers/base"
)

// TaskStats streams the engine's stats of the container (the engine
// samples about once a second) and sends one sample per interval until ctx
// ends or the task exits.
func (d *Driver) TaskStats(ctx context.Context, taskID string, interval time.Duration) (<-chan *base.TaskResourceUsage, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	return base.StreamUsage(ctx, t.exit.Done(), func(ctx context.Context) (func() (*base.TaskResourceUsage, bool), func(), error) {
		resp, err := t.cli.ContainerStats(ctx, t.state.ContainerID, true)
		if err != nil {
			return nil, nil, err
		}
		dec := json.NewDecoder(resp.Body)
		var last time.Time
		next := func() (*base.TaskResourceUsage, bool) {
			for {
				var s container.StatsResponse
				if err := dec.Decode(&s); err != nil {
					return nil, false // the stream ended: the task exited or ctx ended
				}
				if last.IsZero() || time.Since(last) >= interval-100*time.Millisecond {
					last = time.Now()
					return usageFromStats(&s, last), true
				}
			}
		}
		return next, func() { _ = resp.Body.Close() }, nil
	})
}

// usageFromStats converts one engine sample: CPU percentages between the
// engine's previous and current sample (100 = one core), memory as the
// resident set (rss on cgroup v1, anon on v2, else usage minus cache).
func usageFromStats(s *container.StatsResponse, now time.Time) *base.TaskResourceUsage {
	u := &base.TaskResourceUsage{Timestamp: now, Pids: int(s.PidsStats.Current)}
	cur, pre := s.CPUStats, s.PreCPUStats
	sysDelta := float64(cur.SystemUsage) - float64(pre.SystemUsage)
	cpus := float64(cur.OnlineCPUs)
	if cpus == 0 {
		cpus = float64(len(cur.CPUUsage.PercpuUsage))
	}
	pct := func(c, p uint64) float64 {
		if sysDelta <= 0 || c < p {
			return 0
		}
		return float64(c-p) / sysDelta * cpus * 100
	}
	u.CPU.Percent = pct(cur.CPUUsage.TotalUsage, pre.CPUUsage.TotalUsage)
	u.CPU.UserPercent = pct(cur.CPUUsage.UsageInUsermode, pre.CPUUsage.UsageInUsermode)
	u.CPU.SystemPercent = pct(cur.CPUUsage.UsageInKernelmode, pre.CPUUsage.UsageInKernelmode)
	u.CPU.UserTime = time.Duration(cur.CPUUsage.UsageInUsermode)
	u.CPU.SystemTime = time.Duration(cur.CPUUsage.UsageInKernelmode)
	m := s.MemoryStats
	switch {
	case m.Stats["rss"] > 0:
		u.Memory.RSS = m.Stats["rss"]
	case m.Stats["anon"] > 0:
		u.Memory.RSS = m.Stats["anon"]
	case m.Usage > m.Stats["cache"]:
		u.Memory.RSS = m.Usage - m.Stats["cache"]
	}
	u.Memory.Swap = m.Stats["swap"]
	return u
}
