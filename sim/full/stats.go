package full

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// rss is the process's VmRSS in bytes, from /proc/<pid>/status.
func rss(pid int) (uint64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("reading the server's memory: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "VmRSS:" {
			kb, err := strconv.ParseUint(fields[1], 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// cpuSeconds is the process's user and system CPU time, from
// /proc/<pid>/stat (clock ticks of 1/100 s, Linux's USER_HZ).
func cpuSeconds(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("reading the server's CPU time: %w", err)
	}
	return parseStatCPU(string(b))
}

// parseStatCPU reads utime and stime (fields 14 and 15) from a
// /proc/<pid>/stat line; the command (field 2) may hold spaces, so fields
// are counted after its closing parenthesis.
func parseStatCPU(stat string) (float64, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed /proc stat line %q", stat)
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc stat line %q", stat)
	}
	var ticks uint64
	for _, s := range f[11:13] {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc stat CPU field %q: %w", s, err)
		}
		ticks += n
	}
	return float64(ticks) / 100, nil
}

// raftSizes are the server's raft log (raft.db) and on-disk snapshots
// (their state files summed; 0 when raft has taken none yet).
func raftSizes(dataDir string) (logBytes, snapBytes int64) {
	dir := filepath.Join(dataDir, "server", "raft")
	if st, err := os.Stat(filepath.Join(dir, "raft.db")); err == nil {
		logBytes = st.Size()
	}
	_ = filepath.WalkDir(filepath.Join(dir, "snapshots"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				snapBytes += info.Size()
			}
		}
		return nil
	})
	return logBytes, snapBytes
}

// gauge reads a gauge of the server's /v1/metrics whose name ends with
// suffix (names carry the host name or not).
func gauge(s *Server, suffix string) (float64, error) {
	var sum struct {
		Gauges []struct {
			Name  string
			Value float64
		}
	}
	if err := s.Get("/v1/metrics", &sum); err != nil {
		return 0, err
	}
	for _, g := range sum.Gauges {
		if strings.HasSuffix(g.Name, suffix) {
			return g.Value, nil
		}
	}
	return 0, nil
}

// cpuProfile takes a CPU profile of the server over seconds and returns
// its top functions by flat CPU, as "41.2% flat 55.0% cum runtime.mallocgc".
// With save set, the profile is written there too.
func cpuProfile(s *Server, seconds, top int, save string) ([]string, error) {
	body, err := s.Body(fmt.Sprintf("/debug/pprof/profile?seconds=%d", seconds))
	if err != nil {
		return nil, fmt.Errorf("profiling the server: %w", err)
	}
	defer body.Close()
	raw, err := io.ReadAll(body)
	if err != nil {
		return nil, fmt.Errorf("profiling the server: %w", err)
	}
	if save != "" {
		if err := os.WriteFile(save, raw, 0o644); err != nil {
			return nil, err
		}
	}
	p, err := profile.ParseData(raw)
	if err != nil {
		return nil, fmt.Errorf("reading the server's CPU profile: %w", err)
	}
	return topFunctions(p, top), nil
}

// topFunctions sums the profile's last sample value (CPU time) by
// function: flat for the leaf frame, cum once per sample for every frame.
func topFunctions(p *profile.Profile, top int) []string {
	if len(p.SampleType) == 0 {
		return nil
	}
	vi := len(p.SampleType) - 1
	flat, cum := map[string]int64{}, map[string]int64{}
	var total int64
	for _, s := range p.Sample {
		v := s.Value[vi]
		total += v
		seen := map[string]bool{}
		for li, loc := range s.Location {
			for fi, line := range loc.Line {
				if line.Function == nil {
					continue
				}
				name := line.Function.Name
				if li == 0 && fi == 0 {
					flat[name] += v
				}
				if !seen[name] {
					seen[name] = true
					cum[name] += v
				}
			}
		}
	}
	if total == 0 {
		return nil
	}
	names := make([]string, 0, len(flat))
	for n := range flat {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if flat[names[i]] != flat[names[j]] {
			return flat[names[i]] > flat[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) > top {
		names = names[:top]
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%.1f%% flat %.1f%% cum %s", 100*float64(flat[n])/float64(total), 100*float64(cum[n])/float64(total), n)
	}
	return out
}

// saveProfile writes the server's /debug/pprof/<name> to path.
func saveProfile(s *Server, name, path string) error {
	body, err := s.Body("/debug/pprof/" + name)
	if err != nil {
		return err
	}
	defer body.Close()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
