package browsertest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bin is the nomadish binary TestMain builds; dev the agent it starts.
var (
	bin string
	dev *Agent
)

// Agent is a running `nomadish agent -dev` process.
type Agent struct {
	// Addr is its HTTP address, http://127.0.0.1:<port>.
	Addr    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
}

// buildBinary runs `go build -o out` at the module root.
func buildBinary(out string) error {
	root, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return err
	}
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(root)))
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %s", err, b)
	}
	return nil
}

// freePorts returns n distinct ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// startDevAgent starts `agent -dev` with its data dir under dir, on free
// ports, in its own process group, and waits for a leader and a ready node.
func startDevAgent(dir string) (*Agent, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	cfg := fmt.Sprintf("data_dir = %q\nbind_addr = \"127.0.0.1\"\nports {\n  http = %d\n  rpc  = %d\n  serf = %d\n}\n",
		filepath.Join(dir, "data"), ports[0], ports[1], ports[2])
	cfgPath := filepath.Join(dir, "agent.hcl")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		return nil, err
	}
	a := &Agent{Addr: fmt.Sprintf("http://127.0.0.1:%d", ports[0]), logPath: filepath.Join(dir, "agent.log"), done: make(chan struct{})}
	logf, err := os.Create(a.logPath)
	if err != nil {
		return nil, err
	}
	a.cmd = exec.Command(bin, "agent", "-dev", "-config", cfgPath)
	a.cmd.Stdout, a.cmd.Stderr = logf, logf
	a.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := a.cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	go func() { _ = a.cmd.Wait(); logf.Close(); close(a.done) }()
	if err := a.waitReady(30 * time.Second); err != nil {
		a.stop()
		return nil, fmt.Errorf("%v\nagent log:\n%s", err, a.logTail())
	}
	return a, nil
}

// waitReady polls (a real process) until the agent has a leader and a
// ready node.
func (a *Agent) waitReady(timeout time.Duration) error {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case <-a.done:
			return errors.New("agent exited")
		default:
		}
		var leader string
		var nodes []struct{ Status string }
		if a.get("/v1/status/leader", &leader) == nil && leader != "" && a.get("/v1/nodes", &nodes) == nil &&
			len(nodes) > 0 && nodes[0].Status == "ready" {
			return nil
		}
	}
	return fmt.Errorf("agent at %s: no leader and ready node after %v", a.Addr, timeout)
}

// stopJobs purges every job, so the tasks the tests started stop with the
// agent's run, then gives their allocations up to 15 s to stop.
func (a *Agent) stopJobs() {
	var jobs []struct{ ID, Namespace string }
	_ = a.get("/v1/jobs?namespace=*", &jobs)
	for _, j := range jobs {
		req, _ := http.NewRequest(http.MethodDelete, a.Addr+"/v1/job/"+j.ID+"?purge=true&namespace="+j.Namespace, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var allocs []struct{ ClientStatus string }
		_ = a.get("/v1/allocations?namespace=*", &allocs)
		live := 0
		for _, al := range allocs {
			if al.ClientStatus == "running" || al.ClientStatus == "pending" {
				live++
			}
		}
		if live == 0 {
			return
		}
	}
}

// stop sends SIGTERM to the agent's process group, SIGKILL after 10 s.
func (a *Agent) stop() {
	pid := a.cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-a.done:
	case <-time.After(10 * time.Second):
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	<-a.done
}

func (a *Agent) logTail() string {
	b, _ := os.ReadFile(a.logPath)
	lines := strings.Split(string(b), "\n")
	if len(lines) > 60 {
		lines = lines[len(lines)-60:]
	}
	return strings.Join(lines, "\n")
}

// get GETs path and decodes a 2xx answer into out.
func (a *Agent) get(path string, out any) error {
	resp, err := http.Get(a.Addr + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("GET %s: %s: %s", path, resp.Status, b)
	}
	return json.Unmarshal(b, out)
}

// GetJSON GETs path from the agent and decodes the answer into out; a
// failure or a non-2xx answer fails t.
func (a *Agent) GetJSON(t *testing.T, path string, out any) {
	t.Helper()
	if err := a.get(path, out); err != nil {
		t.Fatal(err)
	}
}

// CLIResult runs `nomadish args...` against the agent and returns its
// combined output and exit code.
func (a *Agent) CLIResult(t *testing.T, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "NOMADISH_ADDR="+a.Addr, "NOMAD_ADDR=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &ee):
		return out.String(), ee.ExitCode()
	}
	t.Fatalf("running nomadish %v: %v", args, err)
	return "", 0
}

// CLI runs `nomadish args...` against the agent; a non-zero exit fails t.
func (a *Agent) CLI(t *testing.T, args ...string) string {
	t.Helper()
	out, code := a.CLIResult(t, args...)
	if code != 0 {
		t.Fatalf("nomadish %s: exit %d:\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// RunJob writes hcl to a file and runs `job run -detach` on it.
func (a *Agent) RunJob(t *testing.T, hcl string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "job.nomad.hcl")
	if err := os.WriteFile(path, []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	a.CLI(t, "job", "run", "-detach", path)
}

// WaitRunning waits up to 60 s until the job has allocations and every
// one of them runs, and returns their IDs.
func (a *Agent) WaitRunning(t *testing.T, jobID string) []string {
	t.Helper()
	last := ""
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var allocs []struct{ ID, ClientStatus, DesiredStatus string }
		if err := a.get("/v1/job/"+jobID+"/allocations", &allocs); err != nil {
			last = err.Error()
			continue
		}
		var ids []string
		running := true
		for _, al := range allocs {
			if al.DesiredStatus != "run" {
				continue
			}
			ids = append(ids, al.ID)
			running = running && al.ClientStatus == "running"
		}
		if len(ids) > 0 && running {
			return ids
		}
		last = fmt.Sprintf("%+v", allocs)
	}
	t.Fatalf("job %s: allocations not all running after 60s: %s", jobID, last)
	return nil
}

// UniqueID is prefix plus a random suffix, for the IDs of jobs a test runs
// (tests run again with -count and share one agent).
func UniqueID(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}
