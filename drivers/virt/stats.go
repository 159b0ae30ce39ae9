package virt

import (
	"context"
	"time"

	"github.com/digitalocean/go-libvirt"

	"github.com/nomadish/nomadish/drivers/base"
)

// TaskStats samples the domain through libvirt every interval: CPU time
// (DomainGetCPUStats: the qemu process's user and system time) and the
// host memory the guest uses (DomainMemoryStats' rss).
func (d *Driver) TaskStats(ctx context.Context, taskID string, interval time.Duration) (<-chan *base.TaskResourceUsage, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	var prev *base.TaskResourceUsage
	return base.StreamUsage(ctx, t.exit.Done(), base.Every(interval, func(now time.Time) *base.TaskResourceUsage {
		u := d.sample(t, now)
		if prev != nil {
			cpuPercents(u, prev)
		}
		prev = u
		return u
	}))
}

// sample reads one usage sample; what libvirt cannot answer stays zero.
func (d *Driver) sample(t *task, now time.Time) *base.TaskResourceUsage {
	u := &base.TaskResourceUsage{Timestamp: now, Pids: 1}
	l, err := d.conn.get()
	if err != nil {
		return u
	}
	if params, _, err := l.DomainGetCPUStats(t.dom, 3, -1, 1, 0); err == nil {
		for _, p := range params {
			ns, ok := p.Value.I.(uint64)
			if !ok {
				continue
			}
			switch p.Field {
			case libvirt.DomainCPUStatsUsertime:
				u.CPU.UserTime = time.Duration(ns)
			case libvirt.DomainCPUStatsSystemtime:
				u.CPU.SystemTime = time.Duration(ns)
			}
		}
	}
	if stats, err := l.DomainMemoryStats(t.dom, uint32(libvirt.DomainMemoryStatNr), 0); err == nil {
		for _, s := range stats {
			if libvirt.DomainMemoryStatTags(s.Tag) == libvirt.DomainMemoryStatRss {
				u.Memory.RSS = s.Val << 10 // KiB
			}
		}
	}
	return u
}

// cpuPercents sets u's percentages from the CPU time used since prev
// (100 = one core busy).
func cpuPercents(u, prev *base.TaskResourceUsage) {
	wall := u.Timestamp.Sub(prev.Timestamp)
	if wall <= 0 {
		return
	}
	pct := func(now, before time.Duration) float64 { return float64(now-before) / float64(wall) * 100 }
	u.CPU.UserPercent = pct(u.CPU.UserTime, prev.CPU.UserTime)
	u.CPU.SystemPercent = pct(u.CPU.SystemTime, prev.CPU.SystemTime)
	u.CPU.Percent = u.CPU.UserPercent + u.CPU.SystemPercent
}
