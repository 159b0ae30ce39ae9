package client

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// hostCPUSampleInterval is how long HostStats watches /proc/stat to tell
// each CPU's use.
const hostCPUSampleInterval = 200 * time.Millisecond

// HostStats samples the host's memory, each CPU's use over a short
// interval, the alloc dir's disk and the uptime (GET /v1/client/stats).
func (c *Client) HostStats(ctx context.Context) (*structs.HostStats, error) {
	prev := parseProcStat(readProc("/proc/stat"))
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(hostCPUSampleInterval):
	}
	cur := parseProcStat(readProc("/proc/stat"))
	out := &structs.HostStats{Timestamp: time.Now().UnixNano(), CPU: []*structs.HostCPUStats{}, DiskStats: []*structs.HostDiskStats{}}
	if m, err := parseMeminfo(readProc("/proc/meminfo")); err == nil {
		out.Memory = &structs.HostMemoryStats{Total: m.Total, Available: m.Available, Used: m.Used, Free: m.Free}
	}
	mhz := float64(c.Node().MHzPerCore())
	for name, u := range cpuUsage(prev, cur) {
		out.CPU = append(out.CPU, &structs.HostCPUStats{CPU: name, User: u.User, System: u.System, Idle: u.Idle, Total: u.Total})
		out.CPUTicksConsumed += u.Total / 100 * mhz
	}
	sort.Slice(out.CPU, func(i, j int) bool { return cpuIndex(out.CPU[i].CPU) < cpuIndex(out.CPU[j].CPU) })
	if d, err := statDisk(c.allocRoot()); err == nil {
		out.AllocDirStats = &structs.HostDiskStats{Mountpoint: c.allocRoot(), Size: d.Size, Used: d.Used,
			Available: d.Available, UsedPercent: d.UsedPercent, InodesUsedPercent: d.InodesPercent}
		out.DiskStats = append(out.DiskStats, out.AllocDirStats)
	}
	if f := strings.Fields(string(readProc("/proc/uptime"))); len(f) > 0 {
		if s, err := strconv.ParseFloat(f[0], 64); err == nil {
			out.Uptime = uint64(s)
		}
	}
	return out, nil
}

// cpuIndex is N of "cpuN" (for ordering).
func cpuIndex(name string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(name, "cpu"))
	return n
}
