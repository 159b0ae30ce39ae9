package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/nomadish/nomadish/internal/testbin"
)

// agentTarget is a server agent run as its own process from the binary.
type agentTarget struct {
	cmd  *exec.Cmd
	http string // http://127.0.0.1:port
	rpc  string
	log  *os.File
	done chan struct{} // closed when the process exited
	hc   *http.Client
}

// startAgent builds the binary into dir unless bin is given, writes a
// server-only agent config with raft under dir (and the HCL extra after
// it), starts it and waits for it to lead.
func startAgent(dir, bin, extra string) (*agentTarget, error) {
	if bin == "" {
		bin = filepath.Join(dir, "nomadish")
		build := exec.Command("go", "build", "-o", bin, ".")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return nil, fmt.Errorf("building the nomadish binary (run from the module root, or pass -bin): %w", err)
		}
	}
	ports, err := testbin.FreePorts(3)
	if err != nil {
		return nil, err
	}
	cfg := fmt.Sprintf(`name = "gcbench"
data_dir = %q
bind_addr = "127.0.0.1"
log_level = "WARN"
ports {
  http = %d
  rpc  = %d
  serf = %d
}
enable_debug = true # /debug/pprof for -heapprofile and -cpuprofile
server {
  enabled          = true
  bootstrap_expect = 1
}
%s
`, filepath.Join(dir, "data"), ports[0], ports[1], ports[2], extra)
	cfgPath := filepath.Join(dir, "agent.hcl")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "agent.log"))
	if err != nil {
		return nil, err
	}
	t := &agentTarget{http: fmt.Sprintf("http://127.0.0.1:%d", ports[0]), rpc: fmt.Sprintf("127.0.0.1:%d", ports[1]),
		log: logf, done: make(chan struct{}), hc: &http.Client{Timeout: 5 * time.Minute}}
	t.cmd = exec.Command(bin, "agent", "-config", cfgPath)
	t.cmd.Stdout, t.cmd.Stderr = logf, logf
	t.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := t.cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("starting the agent: %w", err)
	}
	go func() { _ = t.cmd.Wait(); close(t.done) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var leader string
		if err := t.get("/v1/status/leader", &leader); err == nil && leader != "" {
			return t, nil
		}
		select {
		case <-t.done:
			return nil, fmt.Errorf("the agent exited (log: %s)", logf.Name())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Close()
			return nil, errors.New("the agent has no leader after 60s")
		}
	}
}

func (t *agentTarget) RPCAddr() string { return t.rpc }

// Close stops the agent (SIGINT, then SIGKILL after 10 s).
func (t *agentTarget) Close() {
	_ = t.cmd.Process.Signal(os.Interrupt)
	select {
	case <-t.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL)
		<-t.done
	}
	t.log.Close()
}

func (t *agentTarget) do(method, path string, out any) (int, error) {
	req, err := http.NewRequest(method, t.http+path, nil)
	if err != nil {
		return 0, err
	}
	resp, err := t.hc.Do(req)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return 0, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, b)
	}
	if out == nil {
		n, err := io.Copy(io.Discard, resp.Body)
		return int(n), err
	}
	return 0, json.NewDecoder(resp.Body).Decode(out)
}

func (t *agentTarget) get(path string, out any) error {
	_, err := t.do(http.MethodGet, path, out)
	return err
}

// SnapshotSize is the byte count of GET /v1/operator/snapshot.
func (t *agentTarget) SnapshotSize() (int, error) {
	return t.do(http.MethodGet, "/v1/operator/snapshot", nil)
}

// GC is PUT /v1/system/gc.
func (t *agentTarget) GC() error {
	_, err := t.do(http.MethodPut, "/v1/system/gc", nil)
	return err
}

// Memory reads the agent process's /proc status and /v1/metrics.
func (t *agentTarget) Memory() (Memory, error) {
	m, err := procMemory(t.cmd.Process.Pid)
	if err != nil {
		return m, err
	}
	var sum struct {
		Gauges []struct {
			Name  string
			Value float64
		}
	}
	if err := t.get("/v1/metrics", &sum); err != nil {
		return m, err
	}
	for _, g := range sum.Gauges {
		switch { // nomad.runtime.x, or nomad.<host>.runtime.x with the hostname
		case strings.HasSuffix(g.Name, ".runtime.alloc_bytes"):
			m.HeapAllocMB = mb(uint64(g.Value))
		case strings.HasSuffix(g.Name, ".runtime.sys_bytes"):
			m.GoSysMB = mb(uint64(g.Value))
		}
	}
	return m, nil
}

// Profile saves GET /debug/pprof/<name> of the agent to path.
func (t *agentTarget) Profile(name, path string) error {
	resp, err := t.hc.Get(t.http + "/debug/pprof/" + name)
	if err != nil {
		return fmt.Errorf("profiling the agent: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("profiling the agent: %s", resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(f, resp.Body)
	return err
}

// count is how many rows a list holds that match filter, read one row per
// page so that the answer stays small: the X-Nomad-NextToken chain would
// be one request per row, so this asks for the whole list only when
// filter is empty and otherwise for one row (0 or 1).
func (t *agentTarget) count(list, filter string) (int, error) {
	path := "/v1/" + list
	if filter != "" {
		path += "?per_page=1&filter=" + url.QueryEscape(filter)
	}
	var rows []json.RawMessage
	if err := t.get(path, &rows); err != nil {
		return 0, err
	}
	return len(rows), nil
}

// Unfinished says whether any job is not dead or any evaluation is not
// terminal (each count is 0 or 1).
func (t *agentTarget) Unfinished() (int, int, error) {
	jobs, err := t.count("jobs", `Status != "dead"`)
	if err != nil {
		return 0, 0, err
	}
	evals, err := t.count("evaluations", `Status != "complete" and Status != "failed" and Status != "canceled"`)
	return jobs, evals, err
}

// Left counts the jobs, evaluations and allocations the server still has.
func (t *agentTarget) Left() (map[string]int, error) {
	out := map[string]int{}
	for _, list := range []string{"jobs", "evaluations", "allocations"} {
		n, err := t.count(list, "")
		if err != nil {
			return nil, err
		}
		out[list] = n
	}
	return out, nil
}
