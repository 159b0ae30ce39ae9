// Command benchdev measures the dev agent as a user meets it: the time from
// `nomadish agent -dev` to a leader and a ready node, the agent's idle RSS,
// and the time from `nomadish job run` of a raw_exec batch job to its
// allocation being complete. It runs the real binary several times and
// prints the median of each figure (`make bench`). With -drivers it prints
// instead, per driver, the time from `job run` to the allocation running
// and to the task's first output (drivers.go).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const batchJob = `job "benchbatch" {
  type        = "batch"
  datacenters = ["*"]
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/echo"
        args    = ["hello"]
      }
      resources {
        cpu    = 100
        memory = 32
      }
    }
  }
}
`

type sample struct {
	ready, jobRun time.Duration
	rssKB         int64
	pluginRSSKB   int64
	// totalPSSKB is the proportional set size of the agent and its plugins
	// together: pages they share (the same binary) are counted once.
	totalPSSKB int64
}

func main() {
	bin := flag.String("bin", "bin/nomadish", "path to the nomadish binary")
	runs := flag.Int("runs", 5, "number of runs (the median is reported)")
	idle := flag.Duration("idle", 3*time.Second, "how long the agent idles before its RSS is read")
	driversOnly := flag.Bool("drivers", false, "only the per-driver start times (raw_exec, exec, docker, qemu)")
	flag.Parse()
	if *driversOnly {
		if err := benchDrivers(*bin, *runs); err != nil {
			fmt.Fprintf(os.Stderr, "benchdev: drivers: %v\n", err)
			os.Exit(1)
		}
		return
	}

	var samples []sample
	for i := 0; i < *runs; i++ {
		s, err := runOnce(*bin, *idle)
		if err != nil {
			fmt.Fprintf(os.Stderr, "benchdev: run %d: %v\n", i+1, err)
			os.Exit(1)
		}
		fmt.Printf("run %d: ready %v, idle RSS %d MB (plugins %d MB; PSS of all %d MB), job run -> complete %v\n",
			i+1, s.ready.Round(time.Millisecond), s.rssKB/1024, s.pluginRSSKB/1024, s.totalPSSKB/1024, s.jobRun.Round(time.Millisecond))
		samples = append(samples, s)
	}
	fmt.Printf("\nmedian of %d runs:\n", len(samples))
	fmt.Printf("  agent -dev start to leader + ready node: %v (target < 500ms)\n",
		medianDur(samples, func(s sample) time.Duration { return s.ready }).Round(time.Millisecond))
	fmt.Printf("  idle RSS of the dev agent:                %d MB (target < 60 MB; driver plugins add %d MB)\n",
		medianInt(samples, func(s sample) int64 { return s.rssKB })/1024,
		medianInt(samples, func(s sample) int64 { return s.pluginRSSKB })/1024)
	fmt.Printf("  memory of agent + driver plugins (PSS):   %d MB (shared pages of the one binary counted once)\n",
		medianInt(samples, func(s sample) int64 { return s.totalPSSKB })/1024)
	fmt.Printf("  job run (raw_exec batch) to complete:     %v (target < 300ms)\n",
		medianDur(samples, func(s sample) time.Duration { return s.jobRun }).Round(time.Millisecond))
}

func runOnce(bin string, idle time.Duration) (sample, error) {
	var s sample
	dir, err := os.MkdirTemp("", "benchdev")
	if err != nil {
		return s, err
	}
	defer os.RemoveAll(dir)
	ports := freePorts(3)
	cfg := fmt.Sprintf("ports {\n  http = %d\n  rpc = %d\n  serf = %d\n}\n", ports[0], ports[1], ports[2])
	cfgPath := filepath.Join(dir, "agent.hcl")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		return s, err
	}
	jobPath := filepath.Join(dir, "batch.nomad.hcl")
	if err := os.WriteFile(jobPath, []byte(batchJob), 0o644); err != nil {
		return s, err
	}
	addr := fmt.Sprintf("http://127.0.0.1:%d", ports[0])

	start := time.Now()
	cmd := exec.Command(bin, "agent", "-dev", "-config", cfgPath)
	cmd.Stdout, cmd.Stderr = nil, nil
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return s, err
	}
	defer stopAgent(cmd)
	if err := waitReady(addr, 20*time.Second); err != nil {
		return s, err
	}
	s.ready = time.Since(start)

	time.Sleep(idle)
	s.rssKB = rssKB(cmd.Process.Pid)
	s.pluginRSSKB = sumChildren(cmd.Process.Pid, rssKB)
	s.totalPSSKB = pssKB(cmd.Process.Pid) + sumChildren(cmd.Process.Pid, pssKB)

	start = time.Now()
	run := exec.Command(bin, "job", "run", "-address", addr, jobPath)
	if out, err := run.CombinedOutput(); err != nil {
		return s, fmt.Errorf("job run: %v: %s", err, out)
	}
	if err := waitComplete(addr, "benchbatch", 20*time.Second); err != nil {
		return s, err
	}
	s.jobRun = time.Since(start)
	return s, nil
}

func waitReady(addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		var leader string
		if getJSON(addr+"/v1/status/leader", &leader) == nil && leader != "" {
			var nodes []struct{ Status string }
			if getJSON(addr+"/v1/nodes", &nodes) == nil && len(nodes) > 0 && nodes[0].Status == "ready" {
				return nil
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	return fmt.Errorf("agent at %s not ready after %v", addr, timeout)
}

// waitComplete follows the job's allocations with blocking queries until one
// is complete.
func waitComplete(addr, job string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	index := "0"
	for time.Now().Before(deadline) {
		resp, err := http.Get(fmt.Sprintf("%s/v1/job/%s/allocations?index=%s&wait=5s", addr, job, index))
		if err != nil {
			return err
		}
		var allocs []struct{ ClientStatus string }
		err = json.NewDecoder(resp.Body).Decode(&allocs)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if i := resp.Header.Get("X-Nomad-Index"); i != "" {
			index = i
		}
		for _, a := range allocs {
			switch a.ClientStatus {
			case "complete":
				return nil
			case "failed":
				return fmt.Errorf("allocation failed")
			}
		}
	}
	return fmt.Errorf("job %s not complete after %v", job, timeout)
}

func getJSON(url string, out any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

func freePorts(n int) []int {
	var ports []int
	var ls []net.Listener
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			panic(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

func rssKB(pid int) int64 { return procField(fmt.Sprintf("/proc/%d/status", pid), "VmRSS:") }

func pssKB(pid int) int64 { return procField(fmt.Sprintf("/proc/%d/smaps_rollup", pid), "Pss:") }

// procField reads a "Name:  123 kB" line of a /proc file.
func procField(path, name string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, name) {
			f := strings.Fields(line)
			if len(f) >= 2 {
				v, _ := strconv.ParseInt(f[1], 10, 64)
				return v
			}
		}
	}
	return 0
}

// sumChildren sums f over the agent's direct children (driver plugins),
// found by scanning /proc for processes whose parent is pid.
func sumChildren(pid int, f func(int) int64) int64 {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	var sum int64
	for _, e := range entries {
		c, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c))
		if err != nil {
			continue
		}
		// Fields after the command (which may hold spaces) start after ")".
		rest := string(b[strings.LastIndexByte(string(b), ')')+1:])
		fields := strings.Fields(rest)
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			sum += f(c)
		}
	}
	return sum
}

func medianDur(s []sample, f func(sample) time.Duration) time.Duration {
	v := make([]time.Duration, len(s))
	for i := range s {
		v[i] = f(s[i])
	}
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	return v[len(v)/2]
}

func medianInt(s []sample, f func(sample) int64) int64 {
	v := make([]int64, len(s))
	for i := range s {
		v[i] = f(s[i])
	}
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	return v[len(v)/2]
}
