package client

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// cpuTimes is one line of /proc/stat: a CPU's cumulative jiffies.
type cpuTimes struct{ user, system, idle, total uint64 }

// cpuPercent is a CPU's use between two samples, in percent of it.
type cpuPercent struct{ User, System, Idle, Total float64 }

// parseProcStat reads the per-CPU lines ("cpu0 …") of /proc/stat.
func parseProcStat(b []byte) map[string]cpuTimes {
	out := map[string]cpuTimes{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 || !strings.HasPrefix(f[0], "cpu") || f[0] == "cpu" {
			continue
		}
		var v []uint64
		for _, s := range f[1:] {
			n, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				break
			}
			v = append(v, n)
		}
		if len(v) < 4 {
			continue
		}
		var t cpuTimes
		for i, n := range v {
			if i == 8 || i == 9 { // guest time is already in user
				break
			}
			t.total += n
		}
		t.user = v[0] + v[1] // user + nice
		t.system = v[2]
		t.idle = v[3]
		if len(v) > 4 {
			t.idle += v[4] // iowait
		}
		out[f[0]] = t
	}
	return out
}

// cpuUsage is the use of each CPU between prev and cur (CPUs missing from
// prev, or whose counters did not move, are left out).
func cpuUsage(prev, cur map[string]cpuTimes) map[string]cpuPercent {
	out := map[string]cpuPercent{}
	for name, c := range cur {
		p, ok := prev[name]
		if !ok || c.total <= p.total {
			continue
		}
		d := float64(c.total - p.total)
		pct := func(a, b uint64) float64 {
			if a < b {
				return 0
			}
			return float64(a-b) / d * 100
		}
		u := cpuPercent{User: pct(c.user, p.user), System: pct(c.system, p.system), Idle: pct(c.idle, p.idle)}
		u.Total = 100 - u.Idle
		out[name] = u
	}
	return out
}

// memInfo is the host's memory in bytes.
type memInfo struct{ Total, Available, Used, Free uint64 }

// parseMeminfo reads /proc/meminfo (kB values).
func parseMeminfo(b []byte) (memInfo, error) {
	kv := map[string]uint64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			continue
		}
		kv[name] = n * 1024
	}
	total, ok := kv["MemTotal"]
	if !ok {
		return memInfo{}, fmt.Errorf("no MemTotal in /proc/meminfo")
	}
	m := memInfo{Total: total, Free: kv["MemFree"], Available: kv["MemAvailable"]}
	if m.Available == 0 {
		m.Available = m.Free + kv["Buffers"] + kv["Cached"]
	}
	if m.Total > m.Available {
		m.Used = m.Total - m.Available
	}
	return m, nil
}

// diskInfo is the filesystem holding a directory.
type diskInfo struct {
	Size, Used, Available uint64
	UsedPercent           float64
	InodesPercent         float64
}

// statDisk reads the filesystem of dir.
func statDisk(dir string) (diskInfo, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return diskInfo{}, fmt.Errorf("statfs %s: %w", dir, err)
	}
	bs := uint64(st.Bsize)
	d := diskInfo{Size: st.Blocks * bs, Available: st.Bavail * bs}
	if st.Blocks > st.Bfree {
		d.Used = (st.Blocks - st.Bfree) * bs
	}
	if d.Used+d.Available > 0 {
		d.UsedPercent = float64(d.Used) / float64(d.Used+d.Available) * 100
	}
	if st.Files > 0 && st.Files >= st.Ffree {
		d.InodesPercent = float64(st.Files-st.Ffree) / float64(st.Files) * 100
	}
	return d, nil
}

// readProc reads a /proc file; a host without it (not Linux) gives nil.
func readProc(path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return b
}
