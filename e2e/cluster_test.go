package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nomadish/nomadish/internal/testbin"
)

// clusterServer is one server agent of a test cluster: its config is kept so
// that it can be restarted with the same ports and data dir.
type clusterServer struct {
	name    string
	dir     string
	cfgPath string
	http    string // http://127.0.0.1:port
	rpc     string // 127.0.0.1:port (the raft address)
	serf    string // 127.0.0.1:port
	proc    *agentProc
}

// startSerfCluster starts n server agents (non-dev, own data dirs, loopback
// ports, bootstrap_expect = n) that find each other with retry_join.
// extra lines go into each server block's file. The servers are stopped
// when the test ends.
func startSerfCluster(t *testing.T, n int, extra ...string) []*clusterServer {
	t.Helper()
	ports, err := testbin.FreePorts(3 * n)
	if err != nil {
		t.Fatal(err)
	}
	var servers []*clusterServer
	var joins []string
	for i := 0; i < n; i++ {
		s := &clusterServer{
			name: fmt.Sprintf("s%d", i+1), dir: filepath.Join(agentsDir(t), fmt.Sprintf("s%d", i+1)),
			http: fmt.Sprintf("http://127.0.0.1:%d", ports[3*i]), rpc: fmt.Sprintf("127.0.0.1:%d", ports[3*i+1]),
			serf: fmt.Sprintf("127.0.0.1:%d", ports[3*i+2]),
		}
		servers = append(servers, s)
		joins = append(joins, fmt.Sprintf("%q", s.serf))
	}
	for i, s := range servers {
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		cfg := fmt.Sprintf(`name = %q
data_dir = %q
bind_addr = "127.0.0.1"
log_level = "DEBUG"
ports {
  http = %d
  rpc  = %d
  serf = %d
}
server {
  enabled = true
  bootstrap_expect = %d
  server_join {
    retry_join = [%s]
    retry_interval = "200ms"
  }
}
%s
`, s.name, filepath.Join(s.dir, "data"), ports[3*i], ports[3*i+1], ports[3*i+2], n, strings.Join(joins, ", "), strings.Join(extra, "\n"))
		s.cfgPath = filepath.Join(s.dir, "agent.hcl")
		if err := os.WriteFile(s.cfgPath, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		s.start(t)
	}
	t.Cleanup(func() {
		for _, s := range servers {
			if s.proc != nil && !s.proc.exited() {
				s.proc.stop()
			}
			if t.Failed() {
				t.Logf("%s log (tail):\n%s", s.name, s.proc.logTail())
			}
		}
	})
	return servers
}

// start (re)starts the server's process, appending to its log.
func (s *clusterServer) start(t *testing.T) {
	t.Helper()
	logPath := filepath.Join(s.dir, "agent.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	p := &agentProc{addr: s.http, rpcAddr: s.rpc, logPath: logPath, done: make(chan struct{})}
	p.cmd = agentCommand(s.dir, bin, "agent", "-config", s.cfgPath)
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	if err := p.cmd.Start(); err != nil {
		logf.Close()
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); logf.Close(); close(p.done) }()
	s.proc = p
}

// kill SIGKILLs the server's process group and waits for it to exit.
func (s *clusterServer) kill() {
	_ = syscall.Kill(-s.proc.cmd.Process.Pid, syscall.SIGKILL)
	<-s.proc.done
}

// leaderOf returns the leader's RPC address as server s sees it ("" when
// none or unreachable).
func (s *clusterServer) leaderOf() string {
	var leader string
	if getJSON(s.http+"/v1/status/leader", &leader) != nil {
		return ""
	}
	return leader
}

// raftStat returns one of /v1/agent/self's raft stats.
func (s *clusterServer) raftStat(key string) string {
	var self struct{ Stats map[string]map[string]string }
	if getJSON(s.http+"/v1/agent/self", &self) != nil {
		return ""
	}
	return self.Stats["raft"][key]
}

// agreedLeader waits until every live server of servers names the same
// leader among them and returns it.
func agreedLeader(t *testing.T, servers []*clusterServer, timeout time.Duration) *clusterServer {
	t.Helper()
	var leader *clusterServer
	eventually(t, timeout, "one leader all servers agree on", func() (bool, string) {
		seen := map[string]bool{}
		for _, s := range servers {
			seen[s.leaderOf()] = true
		}
		if len(seen) != 1 {
			return false, fmt.Sprint(seen)
		}
		for _, s := range servers {
			if seen[s.rpc] {
				leader = s
				return true, ""
			}
		}
		return false, fmt.Sprint(seen)
	})
	return leader
}

func clusterJob(id string) string {
	return fmt.Sprintf(`job %q {
  datacenters = ["nowhere"]
  type = "batch"
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/true"
      }
    }
  }
}
`, id)
}

// hasJob reports whether server s has job id in its own state (a stale read
// answered locally).
func (s *clusterServer) hasJob(id string) bool {
	resp, err := http.Get(s.http + "/v1/job/" + id + "?stale")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == 200
}

// TestClusterFailover runs three servers joined with retry_join and
// bootstrap_expect = 3: jobs registered through a follower reach every
// server; SIGKILLing the leader elects a new one within seconds, loses no
// acknowledged job and takes new writes; the old leader restarts as a
// follower and catches up to the same raft index. Then a follower killed for
// good is removed from raft by the dead-server cleanup.
func TestClusterFailover(t *testing.T) {
	servers := startSerfCluster(t, 3, "autopilot {\n  dead_server_grace = \"2s\"\n}")
	leader := agreedLeader(t, servers, 60*time.Second)
	eventually(t, 20*time.Second, "three raft peers", func() (bool, string) {
		var peers []string
		err := getJSON(leader.http+"/v1/status/peers", &peers)
		return err == nil && len(peers) == 3, fmt.Sprint(peers, err)
	})
	var jobs []string
	register := func(via *clusterServer) {
		t.Helper()
		id := fmt.Sprintf("cluster-job-%d", len(jobs)+1)
		r := nomadishAt(t, via.http, "job", "run", "-detach", writeFile(t, id+".nomad.hcl", clusterJob(id)))
		if r.code != 0 {
			t.Fatalf("job run %s through %s: %v", id, via.name, r)
		}
		jobs = append(jobs, id)
	}
	follower := func() *clusterServer {
		for _, s := range servers {
			if s != leader && s.proc != nil && !s.proc.exited() {
				return s
			}
		}
		t.Fatal("no follower")
		return nil
	}
	for i := 0; i < 3; i++ {
		register(follower())
	}
	var failovers []time.Duration
	for round := 0; round < 3; round++ {
		old := leader
		old.kill()
		start := time.Now()
		live := slices.DeleteFunc(slices.Clone(servers), func(s *clusterServer) bool { return s == old })
		leader = agreedLeader(t, live, 15*time.Second)
		failovers = append(failovers, time.Since(start))
		// A follower's stale read may lag the new leader by a few
		// replications (the old leader committed with one follower):
		// every acknowledged job must reach every live server.
		for _, s := range live {
			eventually(t, 10*time.Second, fmt.Sprintf("round %d: %s holds every acknowledged job", round, s.name), func() (bool, string) {
				for _, id := range jobs {
					if !s.hasJob(id) {
						return false, "missing " + id
					}
				}
				return true, ""
			})
		}
		register(follower())
		register(leader)
		old.start(t)
		eventually(t, 30*time.Second, old.name+" rejoins as a follower at the leader's raft index", func() (bool, string) {
			if old.leaderOf() != leader.rpc || old.raftStat("state") != "Follower" {
				return false, old.leaderOf() + " " + old.raftStat("state")
			}
			a, b := old.raftStat("applied_index"), leader.raftStat("applied_index")
			return a != "" && a == b, a + " vs " + b
		})
		for _, id := range jobs {
			if !old.hasJob(id) {
				t.Fatalf("round %d: restarted %s misses job %s", round, old.name, id)
			}
		}
		// If the dead-server cleanup removed it meanwhile, it came back as a
		// non-voter: autopilot makes it vote once stable (10 s). The next
		// round needs three voters to keep a quorum after its kill.
		eventually(t, 40*time.Second, "three raft voters again", func() (bool, string) {
			var conf struct{ Servers []struct{ Voter bool } }
			if err := getJSON(leader.http+"/v1/operator/raft/configuration", &conf); err != nil {
				return false, err.Error()
			}
			voters := 0
			for _, s := range conf.Servers {
				if s.Voter {
					voters++
				}
			}
			return voters == 3, fmt.Sprint(voters, " voters")
		})
	}
	sorted := slices.Clone(failovers)
	slices.Sort(sorted)
	t.Logf("leader failover after SIGKILL: median %v (all: %v)", sorted[len(sorted)/2], failovers)

	gone := follower()
	gone.kill()
	eventually(t, 60*time.Second, "the dead server removed from raft", func() (bool, string) {
		var peers []string
		err := getJSON(leader.http+"/v1/status/peers", &peers)
		return err == nil && len(peers) == 2 && !slices.Contains(peers, gone.rpc), fmt.Sprint(peers, err)
	})
	register(follower())
}
