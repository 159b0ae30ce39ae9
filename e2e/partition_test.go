package e2e

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// netLab is a bridge in its own network namespace (so the root namespace's
// firewall, e.g. Docker's FORWARD DROP, never sees the traffic), one
// namespace per server with a veth to the bridge, and a veth from the root
// namespace (10.77.0.1) so the test reaches every server's HTTP API.
type netLab struct {
	t      *testing.T
	prefix string   // unique per run: namespace and link names start with it
	nss    []string // created namespaces, deleted by cleanup
}

// run runs a command, failing the test on error.
func (l *netLab) run(args ...string) {
	l.t.Helper()
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		l.t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func (l *netLab) addNS(name string) {
	l.t.Helper()
	l.run("ip", "netns", "add", name)
	l.nss = append(l.nss, name)
	l.run("ip", "-n", name, "link", "set", "lo", "up")
}

// cleanup deletes every namespace created (their veths go with them, and
// the root end of the host veth with the bridge namespace's end).
func (l *netLab) cleanup() {
	for i := len(l.nss) - 1; i >= 0; i-- {
		if out, err := exec.Command("ip", "netns", "del", l.nss[i]).CombinedOutput(); err != nil {
			l.t.Logf("deleting netns %s: %v %s", l.nss[i], err, out)
		}
	}
	_ = exec.Command("ip", "link", "del", l.prefix+"h").Run() // gone with its peer normally
}

// newNetLab builds the bridge namespace and the host veth; n server
// namespaces get 10.77.0.11, .12, ... from addServer.
func newNetLab(t *testing.T) *netLab {
	l := &netLab{t: t, prefix: fmt.Sprintf("nd%d", os.Getpid()%100000)}
	t.Cleanup(l.cleanup)
	br := l.prefix + "-br"
	l.addNS(br)
	l.run("ip", "-n", br, "link", "add", "br0", "type", "bridge")
	l.run("ip", "-n", br, "link", "set", "br0", "up")
	host := l.prefix + "h"
	l.run("ip", "link", "add", host, "type", "veth", "peer", "name", "hostp", "netns", br)
	l.run("ip", "-n", br, "link", "set", "hostp", "master", "br0", "up")
	l.run("ip", "addr", "add", "10.77.0.1/24", "dev", host)
	l.run("ip", "link", "set", host, "up")
	return l
}

// addServer creates namespace <prefix>-s<i> with address 10.77.0.(10+i).
func (l *netLab) addServer(i int) (ns, ip string) {
	ns, ip = fmt.Sprintf("%s-s%d", l.prefix, i), fmt.Sprintf("10.77.0.%d", 10+i)
	br := l.prefix + "-br"
	l.addNS(ns)
	port := fmt.Sprintf("v%d", i)
	l.run("ip", "-n", br, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns)
	l.run("ip", "-n", br, "link", "set", port, "master", "br0", "up")
	l.run("ip", "-n", ns, "addr", "add", ip+"/24", "dev", "eth0")
	l.run("ip", "-n", ns, "link", "set", "eth0", "up")
	return ns, ip
}

// isolate drops, inside ns, all traffic to and from peers (the other
// servers); the test host (10.77.0.1) still reaches it. heal flushes it.
func (l *netLab) isolate(ns string, peers []string) {
	for _, p := range peers {
		l.run("ip", "netns", "exec", ns, "iptables", "-A", "INPUT", "-s", p, "-j", "DROP")
		l.run("ip", "netns", "exec", ns, "iptables", "-A", "OUTPUT", "-d", p, "-j", "DROP")
	}
}

func (l *netLab) heal(ns string) {
	l.run("ip", "netns", "exec", ns, "iptables", "-F")
}

// A three-server cluster, each server in its own network namespace: the
// leader is cut off from the other two. It refuses a write with a clear
// error (not a 200) within the hold timeout; the majority elects a new
// leader and accepts writes; after healing, every server reaches the same
// raft applied index and holds the majority's writes.
func TestPartitionedLeaderRefusesWrites(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for network namespaces")
	}
	lab := newNetLab(t)
	const n = 3
	servers, nss, ips := startNetnsCluster(t, lab, n)
	leader := waitConverged(t, servers, n, 60*time.Second)
	li := -1
	for i, p := range servers {
		if p.rpcAddr == leader {
			li = i
		}
	}
	if li < 0 {
		t.Fatalf("leader %s is none of the servers", leader)
	}
	hc := &http.Client{Timeout: 30 * time.Second}
	if code, err := putJob(hc, servers[li].addr, "part-before", "1"); err != nil || code != 200 {
		t.Fatalf("write before the partition: %d %v", code, err)
	}

	var peers []string
	for i := range n {
		if i != li {
			peers = append(peers, ips[i])
		}
	}
	lab.isolate(nss[li], peers)
	start := time.Now()
	code, body := putJobBody(t, hc, servers[li].addr, "part-minority")
	took := time.Since(start)
	t.Logf("minority write: %d %q after %v", code, body, took)
	if code == http.StatusOK || code == 0 || !strings.Contains(body, "leader") || took > 15*time.Second {
		t.Fatalf("minority write: status %d body %q after %v; want a no-leader error within the hold timeout", code, body, took)
	}

	var newLeader string
	eventually(t, 30*time.Second, "a leader on the majority side", func() (bool, string) {
		for i, p := range servers {
			if i != li {
				if l := leaderOf(p.addr); l != "" && l != leader {
					newLeader = l
					return true, ""
				}
			}
		}
		return false, "no new leader"
	})
	t.Logf("majority elected %s (old leader %s) %v after the partition", newLeader, leader, time.Since(start))
	// Still cut off, the old leader keeps refusing: it has no leader to
	// forward to and gives up after the hold timeout (5 s).
	start = time.Now()
	code, body = putJobBody(t, hc, servers[li].addr, "part-minority-2")
	t.Logf("minority write after the election: %d %q after %v", code, body, time.Since(start))
	if code == http.StatusOK || code == 0 || !strings.Contains(body, "leader") || time.Since(start) > 15*time.Second {
		t.Fatalf("minority write after the election: status %d body %q", code, body)
	}
	majority := servers[(li+1)%n]
	for _, id := range []string{"part-majority-1", "part-majority-2"} {
		if code, err := putJob(hc, majority.addr, id, "1"); err != nil || code != 200 {
			t.Fatalf("majority write %s: %d %v", id, code, err)
		}
	}

	lab.heal(nss[li])
	checkHealed(t, servers, []string{"part-before", "part-majority-1", "part-majority-2"}, []string{"part-minority", "part-minority-2"})
}

// checkHealed waits until every server is at the same raft applied index,
// then checks each one's own state (stale reads) has every job of want and
// none of refused.
func checkHealed(t *testing.T, servers []*serverProc, want, refused []string) {
	t.Helper()
	healed := time.Now()
	var last string
	eventually(t, 60*time.Second, "every server at the same applied index", func() (bool, string) {
		idx := make([]string, len(servers))
		for i, p := range servers {
			idx[i] = raftStatOf(p.addr, "applied_index")
		}
		last = strings.Join(idx, " ")
		for _, x := range idx {
			if x == "" || x != idx[0] {
				return false, last
			}
		}
		return true, last
	})
	t.Logf("converged on applied index %s %v after healing", last, time.Since(healed))
	for _, p := range servers {
		for _, id := range want {
			var job map[string]any
			if err := getJSON(p.addr+"/v1/job/"+id+"?stale", &job); err != nil {
				t.Errorf("%s: job %s: %v", p.name, id, err)
			}
		}
		for _, id := range refused {
			var job map[string]any
			if err := getJSON(p.addr+"/v1/job/"+id+"?stale", &job); err == nil {
				t.Errorf("%s: refused write %s is in the state", p.name, id)
			}
		}
	}
}

// startNetnsCluster starts n server agents, agent i in its own namespace of
// lab at 10.77.0.(10+i) (same ports everywhere: each namespace has its
// own), and registers their SIGKILL (before the namespaces are deleted).
func startNetnsCluster(t *testing.T, lab *netLab, n int) (servers []*serverProc, nss, ips []string) {
	t.Helper()
	ips, nss = make([]string, n), make([]string, n)
	var join []string
	for i := range n {
		nss[i], ips[i] = lab.addServer(i + 1)
		join = append(join, ips[i]+":4648")
	}
	base := agentsDir(t) // before the Cleanup below, so it is removed after the servers stop
	servers = make([]*serverProc, n)
	t.Cleanup(func() { // registered after the lab's: runs first, before the namespaces go
		for _, p := range servers {
			if p != nil && !p.exited() {
				p.kill()
			}
		}
		if t.Failed() {
			for _, p := range servers {
				if p != nil {
					t.Logf("agent %s log (tail):\n%s", p.name, p.logTail())
				}
			}
		}
	})
	for i := range n {
		name := fmt.Sprintf("p%d", i+1)
		dir := filepath.Join(base, name)
		cfg := serverAgentConfig(dir, name, ips[i], 4646, 4647, 4648, n, join)
		p, err := startServerAgent(dir, name, ips[i]+":4646", ips[i]+":4647", cfg, "ip", "netns", "exec", nss[i])
		if err != nil {
			t.Fatal(err)
		}
		servers[i] = p
	}
	return servers, nss, ips
}

// putJobBody registers a job and returns the status and body (0 and the
// error text when the request itself failed).
func putJobBody(t *testing.T, hc *http.Client, addr, id string) (int, string) {
	t.Helper()
	body := fmt.Sprintf(`{"Job":{"ID":%q,"Name":%q,"Type":"batch","Datacenters":["nowhere"],"TaskGroups":[{"Name":"g","Count":1,"Tasks":[{"Name":"t","Driver":"raw_exec","Config":{"command":"/bin/true"}}]}]}}`, id, id)
	req, _ := http.NewRequest(http.MethodPut, addr+"/v1/jobs", strings.NewReader(body))
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// raftStatOf reads one raft stat from /v1/agent/self ("" if unreachable).
func raftStatOf(addr, key string) string {
	var self struct{ Stats map[string]map[string]string }
	if getJSON(addr+"/v1/agent/self", &self) != nil {
		return ""
	}
	return self.Stats["raft"][key]
}
