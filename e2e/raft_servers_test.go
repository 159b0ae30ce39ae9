package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nomadish/nomadish/internal/testbin"
)

// serverProc is one server-only agent started by startServerAgent: its
// config stays on disk so it can be restarted on the same data dir.
type serverProc struct {
	*agentProc
	dir, cfgPath, name string
	serfAddr           string
}

// serverAgentConfig is a server-only agent config on ip: its own data dir
// under dir, the given ports, bootstrap_expect, serverLines inside the
// server block and, when join is non-empty, server_join { retry_join = join }.
func serverAgentConfig(dir, name, ip string, http, rpc, serf, expect int, join []string, serverLines ...string) string {
	cfg := fmt.Sprintf("name = %q\ndata_dir = %q\nbind_addr = %q\nlog_level = \"debug\"\nports {\n  http = %d\n  rpc  = %d\n  serf = %d\n}\n",
		name, filepath.Join(dir, "data"), ip, http, rpc, serf)
	cfg += fmt.Sprintf("server {\n  enabled = true\n  bootstrap_expect = %d\n", expect)
	for _, l := range serverLines {
		cfg += "  " + l + "\n"
	}
	if len(join) > 0 {
		q := make([]string, len(join))
		for i, j := range join {
			q[i] = fmt.Sprintf("%q", j)
		}
		cfg += fmt.Sprintf("  server_join {\n    retry_join = [%s]\n  }\n", strings.Join(q, ", "))
	}
	return cfg + "}\n"
}

// startServerAgent writes cfg to dir/agent.hcl and starts `agent -config`
// with it (argv prefix wraps the command, e.g. ip netns exec NAME). The
// caller stops it (stop or kill).
func startServerAgent(dir, name, httpAddr, rpcAddr, cfg string, prefix ...string) (*serverProc, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	p := &serverProc{dir: dir, cfgPath: filepath.Join(dir, "agent.hcl"), name: name}
	if err := os.WriteFile(p.cfgPath, []byte(cfg), 0o644); err != nil {
		return nil, err
	}
	return p, p.start(httpAddr, rpcAddr, prefix...)
}

// start (re)starts the agent process on its config and data dir, appending
// to its log.
func (p *serverProc) start(httpAddr, rpcAddr string, prefix ...string) error {
	a := &agentProc{addr: "http://" + httpAddr, rpcAddr: rpcAddr, logPath: filepath.Join(p.dir, "agent.log"), done: make(chan struct{})}
	logf, err := os.OpenFile(a.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	argv := append(append([]string{}, prefix...), bin, "agent", "-config", p.cfgPath)
	a.cmd = agentCommand(p.dir, argv...)
	a.cmd.Stdout, a.cmd.Stderr = logf, logf
	if err := a.cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	go func() { _ = a.cmd.Wait(); logf.Close(); close(a.done) }()
	p.agentProc = a
	return nil
}

// kill SIGKILLs the agent's process group and waits for it to exit.
func (p *serverProc) kill() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

// leaderOf returns what the agent at addr reports as the raft leader ("" if
// none or unreachable).
func leaderOf(addr string) string {
	var leader string
	if err := getJSON(addr+"/v1/status/leader", &leader); err != nil {
		return ""
	}
	return leader
}

// putJob registers a minimal batch job id with meta v through the agent at
// addr (datacenter "nowhere": nothing is placed) and returns the status code.
func putJob(hc *http.Client, addr, id, v string) (int, error) {
	job := map[string]any{"Job": map[string]any{
		"ID": id, "Name": id, "Type": "batch", "Datacenters": []string{"nowhere"}, "Meta": map[string]string{"v": v},
		"TaskGroups": []any{map[string]any{"Name": "g", "Count": 1, "Tasks": []any{map[string]any{
			"Name": "t", "Driver": "raw_exec", "Config": map[string]any{"command": "/bin/true"}}}}},
	}}
	buf, _ := json.Marshal(job)
	req, _ := http.NewRequest(http.MethodPut, addr+"/v1/jobs", bytes.NewReader(buf))
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return resp.StatusCode, nil
}

// waitLeader polls until the agent at addr reports a leader.
func waitLeader(t *testing.T, addr string, timeout time.Duration) string {
	t.Helper()
	var leader string
	eventually(t, timeout, "a raft leader at "+addr, func() (bool, string) {
		leader = leaderOf(addr)
		return leader != "", "no leader"
	})
	return leader
}

// startRaftCluster starts n server agents on loopback (bootstrap_expect = n,
// each retry-joining every serf address, serverLines in each server block)
// and waits until they agree on a leader and the raft configuration has n
// voters. Cleanup stops them all.
func startRaftCluster(t *testing.T, n int, serverLines ...string) []*serverProc {
	t.Helper()
	return startRaftClusterWith(t, n, "", serverLines...)
}

// startRaftClusterWith is startRaftCluster with top appended to every
// server's config (top-level blocks such as acl { ... }).
func startRaftClusterWith(t *testing.T, n int, top string, serverLines ...string) []*serverProc {
	t.Helper()
	ports, err := testbin.FreePorts(3 * n)
	if err != nil {
		t.Fatal(err)
	}
	var join []string
	for i := range n {
		join = append(join, fmt.Sprintf("127.0.0.1:%d", ports[3*i+2]))
	}
	// The base dir comes before the Cleanup that stops the servers: cleanups
	// run last-registered first, so the servers stop before their dirs are
	// removed (a server still writing a snapshot made RemoveAll fail).
	base := agentsDir(t)
	servers := make([]*serverProc, 0, n)
	t.Cleanup(func() {
		for _, p := range servers {
			if !p.exited() {
				p.stop()
			}
		}
		if t.Failed() {
			for _, p := range servers {
				t.Logf("agent %s log (tail):\n%s", p.name, p.logTail())
			}
		}
	})
	for i := range n {
		name := fmt.Sprintf("s%d", i+1)
		dir := filepath.Join(base, name)
		h, r, s := ports[3*i], ports[3*i+1], ports[3*i+2]
		cfg := serverAgentConfig(dir, name, "127.0.0.1", h, r, s, n, join, serverLines...) + top
		p, err := startServerAgent(dir, name, fmt.Sprintf("127.0.0.1:%d", h), fmt.Sprintf("127.0.0.1:%d", r), cfg)
		if err != nil {
			t.Fatal(err)
		}
		servers = append(servers, p)
	}
	if top == "" {
		waitConverged(t, servers, n, 60*time.Second)
	} else { // the raft configuration may need a token: the caller waits
		eventually(t, 60*time.Second, "a leader", func() (bool, string) { return leaderOf(servers[0].addr) != "", "" })
	}
	return servers
}

// waitConverged polls until every live server reports the same leader and
// the leader's raft configuration has voters voters.
func waitConverged(t *testing.T, servers []*serverProc, voters int, timeout time.Duration) string {
	t.Helper()
	return waitConvergedToken(t, servers, voters, timeout, "")
}

// waitConvergedToken is waitConverged reading the raft configuration with
// an ACL token ("" for none).
func waitConvergedToken(t *testing.T, servers []*serverProc, voters int, timeout time.Duration, token string) string {
	t.Helper()
	var leader string
	eventually(t, timeout, "servers agree on a leader", func() (bool, string) {
		leader = ""
		for _, p := range servers {
			if p.exited() {
				continue
			}
			l := leaderOf(p.addr)
			if l == "" || (leader != "" && l != leader) {
				return false, fmt.Sprintf("%s sees leader %q", p.name, l)
			}
			leader = l
		}
		var conf struct{ Servers []struct{ Voter bool } }
		if err := getJSONToken(servers[0].addr+"/v1/operator/raft/configuration?stale", token, &conf); err != nil || len(conf.Servers) != voters {
			return false, fmt.Sprintf("raft configuration %+v %v", conf, err)
		}
		return true, ""
	})
	return leader
}

// killAndRestartLeader SIGKILLs the current leader, measures the time until
// another server reports a new leader, restarts the killed agent on its
// data dir and waits until all servers agree on a leader again.
func killAndRestartLeader(t *testing.T, servers []*serverProc) time.Duration {
	t.Helper()
	old := waitConverged(t, servers, len(servers), 30*time.Second)
	var victim *serverProc
	for _, p := range servers {
		if p.rpcAddr == old {
			victim = p
		}
	}
	if victim == nil {
		t.Fatalf("leader %s is none of the servers", old)
	}
	start := time.Now()
	victim.kill()
	eventually(t, 30*time.Second, "a new leader after killing "+victim.name, func() (bool, string) {
		for _, p := range servers {
			if p != victim {
				if l := leaderOf(p.addr); l != "" && l != old {
					return true, ""
				}
			}
		}
		return false, "no new leader"
	})
	failover := time.Since(start)
	if err := victim.start(victim.addr[len("http://"):], victim.rpcAddr); err != nil {
		t.Fatal(err)
	}
	waitConverged(t, servers, len(servers), 60*time.Second)
	t.Logf("killed leader %s: new leader in %v; restarted, cluster converged", victim.name, failover)
	return failover
}
