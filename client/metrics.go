package client

import (
	"time"

	metrics "github.com/hashicorp/go-metrics"

	"github.com/nomadish/nomadish/client/allocrunner"
)

// publishMetrics emits, every MetricsInterval until Shutdown, Nomad's host
// gauges (nomad.client.host.*, with PublishNodeMetrics) and each running
// task's usage (nomad.client.allocs.*, with PublishAllocationMetrics).
// Started by New when either is on; runs on the client's WaitGroup.
func (c *Client) publishMetrics() {
	interval := c.cfg.MetricsInterval
	if interval <= 0 {
		interval = time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	start := time.Now()
	var prevCPU map[string]cpuTimes // the first tick has a CPU delta
	if c.cfg.PublishNodeMetrics {
		prevCPU = parseProcStat(readProc("/proc/stat"))
	}
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
		}
		if c.cfg.PublishNodeMetrics {
			prevCPU = c.publishHostMetrics(prevCPU, time.Since(start))
		}
		if c.cfg.PublishAllocationMetrics {
			c.publishAllocMetrics()
		}
	}
}

// baseLabels are the node's labels on every client gauge.
func (c *Client) baseLabels() []metrics.Label {
	n := c.Node()
	return []metrics.Label{{Name: "node_id", Value: n.ID}, {Name: "datacenter", Value: n.Datacenter},
		{Name: "node_class", Value: n.NodeClass}, {Name: "node_pool", Value: n.NodePool}}
}

func with(base []metrics.Label, more ...metrics.Label) []metrics.Label {
	return append(append(make([]metrics.Label, 0, len(base)+len(more)), base...), more...)
}

// publishHostMetrics emits memory, per-CPU use since prevCPU, the alloc
// dir's disk and the uptime; it returns the CPU counters for next time.
func (c *Client) publishHostMetrics(prevCPU map[string]cpuTimes, uptime time.Duration) map[string]cpuTimes {
	base := c.baseLabels()
	g := func(l []metrics.Label, v float64, key ...string) {
		metrics.SetGaugeWithLabels(append([]string{"client", "host"}, key...), float32(v), l)
	}
	if m, err := parseMeminfo(readProc("/proc/meminfo")); err == nil {
		g(base, float64(m.Total), "memory", "total")
		g(base, float64(m.Available), "memory", "available")
		g(base, float64(m.Used), "memory", "used")
		g(base, float64(m.Free), "memory", "free")
	}
	cur := parseProcStat(readProc("/proc/stat"))
	for cpu, u := range cpuUsage(prevCPU, cur) {
		l := with(base, metrics.Label{Name: "cpu", Value: cpu})
		g(l, u.Total, "cpu", "total")
		g(l, u.User, "cpu", "user")
		g(l, u.System, "cpu", "system")
		g(l, u.Idle, "cpu", "idle")
	}
	if d, err := statDisk(c.allocRoot()); err == nil {
		l := with(base, metrics.Label{Name: "disk", Value: c.allocRoot()})
		g(l, float64(d.Size), "disk", "size")
		g(l, float64(d.Used), "disk", "used")
		g(l, float64(d.Available), "disk", "available")
		g(l, d.UsedPercent, "disk", "used_percent")
		g(l, d.InodesPercent, "disk", "inodes_percent")
	}
	metrics.SetGaugeWithLabels([]string{"client", "uptime"}, float32(uptime.Seconds()), base)
	return cur
}

// publishAllocMetrics emits each running task's latest usage sample, with
// the labels alloc_id, task, job, task_group and namespace.
func (c *Client) publishAllocMetrics() {
	base := c.baseLabels()
	mhzPerCore := 0.0
	if n := c.Node(); n.NodeResources != nil && n.NodeResources.Cpu.TotalCpuCores > 0 {
		mhzPerCore = float64(n.NodeResources.Cpu.CpuShares) / float64(n.NodeResources.Cpu.TotalCpuCores)
	}
	c.allocMu.Lock()
	runners := make([]*allocrunner.AllocRunner, 0, len(c.allocs))
	for _, ar := range c.allocs {
		runners = append(runners, ar)
	}
	c.allocMu.Unlock()
	for _, ar := range runners {
		a := ar.Alloc()
		for task, u := range ar.Stats() {
			l := with(base, metrics.Label{Name: "alloc_id", Value: a.ID}, metrics.Label{Name: "task", Value: task},
				metrics.Label{Name: "job", Value: a.JobID}, metrics.Label{Name: "task_group", Value: a.TaskGroup},
				metrics.Label{Name: "namespace", Value: a.Namespace})
			g := func(v float64, key ...string) {
				metrics.SetGaugeWithLabels(append([]string{"client", "allocs"}, key...), float32(v), l)
			}
			g(float64(u.Memory.RSS), "memory", "rss")
			g(float64(u.Memory.RSS), "memory", "usage")
			g(float64(u.Memory.Swap), "memory", "swap")
			g(u.CPU.Percent, "cpu", "total_percent")
			g(u.CPU.UserPercent, "cpu", "user")
			g(u.CPU.SystemPercent, "cpu", "system")
			g(u.CPU.Percent/100*mhzPerCore, "cpu", "total_ticks")
		}
	}
}
