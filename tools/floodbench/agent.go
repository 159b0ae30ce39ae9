package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// agentProc is the dev agent floodbench started.
type agentProc struct {
	cmd  *exec.Cmd
	addr string // 127.0.0.1:<http port>
	done chan struct{}
}

// startAgent starts `bin agent -dev` with its data in dir, on free ports,
// logging to dir/agent.log; extra is appended to its config.
func startAgent(bin, dir, extra string) (*agentProc, error) {
	ports := make([]int, 3)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	cfg := fmt.Sprintf("data_dir = %q\nbind_addr = \"127.0.0.1\"\nlog_level = \"WARN\"\nports {\n  http = %d\n  rpc  = %d\n  serf = %d\n}\n%s\n",
		filepath.Join(dir, "data"), ports[0], ports[1], ports[2], extra)
	cfgPath := filepath.Join(dir, "agent.hcl")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "agent.log"))
	if err != nil {
		return nil, err
	}
	a := &agentProc{addr: fmt.Sprintf("127.0.0.1:%d", ports[0]), done: make(chan struct{})}
	a.cmd = exec.Command(bin, "agent", "-dev", "-config", cfgPath)
	a.cmd.Stdout, a.cmd.Stderr = logf, logf
	a.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := a.cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	go func() { _ = a.cmd.Wait(); logf.Close(); close(a.done) }()
	return a, nil
}

// stop ends the agent's process group: SIGTERM, then SIGKILL after 10 s.
func (a *agentProc) stop() {
	pid := a.cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-a.done:
	case <-time.After(10 * time.Second):
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	<-a.done
}

// waitLeader polls /v1/status/leader until it names a leader.
func waitLeader(addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + addr + "/v1/status/leader")
		if err == nil {
			var leader string
			err = json.NewDecoder(resp.Body).Decode(&leader)
			resp.Body.Close()
			if err == nil && leader != "" {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("agent at %s: no leader after %v", addr, timeout)
}
