package e2e

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nomadish/nomadish/internal/testbin"
)

// fastTTL is the server block that keeps heartbeat TTLs short, so a killed
// client's node goes down within about 3 s (TTL 1-2 s plus 1 s grace).
const fastTTL = "server {\n  min_heartbeat_ttl = \"1s\"\n  heartbeat_grace = \"1s\"\n}"

// lostJob is a service job of count 2 spread over the nodes of dc; each
// task appends "<alloc id> <pid>" to pidFile, then loops.
func lostJob(id, dc, pidFile string) string {
	job := rawExecJob(id, "service", "/bin/sh",
		[]string{"-c", `echo "$NOMAD_ALLOC_ID $$" >> ` + pidFile + `; while true; do sleep 0.2; done`}, 32)
	job = strings.Replace(job, `type = "service"`, fmt.Sprintf("type = \"service\"\n  datacenters = [%q]", dc), 1)
	return strings.Replace(job, `group "g" {`, `group "g" {
    count = 2
    spread {
      attribute = "${node.unique.id}"
    }`, 1)
}

// clusterAllocs reads GET /v1/job/:id/allocations from the agent at addr.
func clusterAllocs(t *testing.T, addr, id string) []allocRow {
	t.Helper()
	var out []allocRow
	if err := getJSON(addr+"/v1/job/"+id+"/allocations", &out); err != nil {
		t.Fatalf("reading allocations of %s: %v", id, err)
	}
	return out
}

// nodeStatus returns the status of the node named name at addr ("" when
// absent) and its ID.
func nodeStatus(addr, name string) (status, id string) {
	var nodes []struct{ ID, Name, Status string }
	if getJSON(addr+"/v1/nodes", &nodes) != nil {
		return "", ""
	}
	for _, n := range nodes {
		if n.Name == name {
			return n.Status, n.ID
		}
	}
	return "", ""
}

// taskPIDs reads pidFile: alloc ID -> pid.
func taskPIDs(t *testing.T, pidFile string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			pid, _ := strconv.Atoi(f[1])
			out[f[0]] = pid
		}
	}
	return out
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// killGroup SIGKILLs the process group of a (the agent, its plugins and
// their tasks) and waits for the agent.
func killGroup(a *agentProc) {
	_ = syscall.Kill(-a.cmd.Process.Pid, syscall.SIGKILL)
	<-a.done
}

// lostCluster is a dev server with short heartbeat TTLs (fastTTL) and
// client agents in one datacenter, all on loopback with their own dirs.
type lostCluster struct {
	t      *testing.T
	base   string
	dc     string
	srv    *agentProc
	agents map[string]*agentProc // by name
	ids    map[string]string     // node ID by name
}

// startLostCluster starts the server and the clients names in dc, and
// waits until every client's node is ready. Everything is killed when the
// test ends (a SIGSTOPped agent is continued first).
func startLostCluster(t *testing.T, dc string, names ...string) *lostCluster {
	c := &lostCluster{t: t, base: agentsDir(t), dc: dc, agents: map[string]*agentProc{}, ids: map[string]string{}}
	srv, err := startAgent(filepath.Join(c.base, "server"), true, "", fastTTL)
	if err != nil {
		t.Fatal(err)
	}
	c.srv = srv
	t.Cleanup(func() {
		for name, a := range c.agents {
			_ = syscall.Kill(a.cmd.Process.Pid, syscall.SIGCONT)
			killGroup(a)
			if t.Failed() {
				t.Logf("%s log (tail):\n%s", name, a.logTail())
			}
		}
		srv.stop()
		if t.Failed() {
			t.Logf("server log (tail):\n%s", srv.logTail())
		}
	})
	if err := srv.waitReady(1, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		c.startClient(name)
	}
	eventually(t, 30*time.Second, "clients ready", func() (bool, string) {
		for _, n := range names {
			st, id := nodeStatus(srv.addr, n)
			if st != "ready" {
				return false, n + " " + st
			}
			c.ids[n] = id
		}
		return true, ""
	})
	return c
}

// startClient (re)starts client agent name on its data dir.
func (c *lostCluster) startClient(name string) {
	a, err := startAgent(filepath.Join(c.base, name), false, c.srv.rpcAddr, fmt.Sprintf("datacenter = %q", c.dc))
	if err != nil {
		c.t.Fatal(err)
	}
	c.agents[name] = a
}

// runSpread runs job (count 2, tasks writing pidFile) and waits for one
// running allocation on each of the two clients with both pids written;
// it returns the allocation ID by client name.
func (c *lostCluster) runSpread(jobID, job, pidFile string) map[string]string {
	c.t.Helper()
	if r := nomadishAt(c.t, c.srv.addr, "job", "run", "-detach", writeFile(c.t, jobID+".nomad.hcl", job)); r.code != 0 {
		c.t.Fatalf("job run: %v", r)
	}
	byName := map[string]string{}
	eventually(c.t, 30*time.Second, "one running allocation on each client", func() (bool, string) {
		allocs := clusterAllocs(c.t, c.srv.addr, jobID)
		for name, id := range c.ids {
			for _, a := range allocs {
				if a.NodeID == id && a.ClientStatus == "running" {
					byName[name] = a.ID
				}
			}
		}
		return len(allocs) == 2 && len(byName) == 2 && len(taskPIDs(c.t, pidFile)) == 2, fmt.Sprintf("%+v", allocs)
	})
	return byName
}

// TestClientKilledAllocsReplaced runs its own server (short heartbeat TTLs)
// and two client agents, lost1 and lost2, with a service job of count 2, one
// allocation on each. (a) lost1's agent is SIGKILLed (alone: its tasks
// survive, as when only the agent crashes): its node goes down after the
// TTL, its allocation becomes lost and is replaced on lost2; counts stay
// right and nothing is placed twice. (b) lost1 restarts on its data dir:
// its node is ready again, the lost allocation's task is stopped on it
// (process gone), and the job keeps its two allocations on lost2.
func TestClientKilledAllocsReplaced(t *testing.T) {
	c := startLostCluster(t, "dc-lost", "lost1", "lost2")
	pidFile := filepath.Join(c.base, "pids")
	onLost1 := c.runSpread("e2e-lost", lostJob("e2e-lost", "dc-lost", pidFile), pidFile)["lost1"]
	lostPID := taskPIDs(t, pidFile)[onLost1]

	// (a) SIGKILL lost1's agent only.
	killed := time.Now()
	if err := c.agents["lost1"].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-c.agents["lost1"].done
	var down, replaced time.Duration
	eventually(t, 30*time.Second, "lost1 down and its allocation replaced on lost2", func() (bool, string) {
		if st, _ := nodeStatus(c.srv.addr, "lost1"); st == "down" && down == 0 {
			down = time.Since(killed)
		}
		allocs := clusterAllocs(t, c.srv.addr, "e2e-lost")
		running := 0
		for _, a := range allocs {
			if a.NodeID == c.ids["lost2"] && a.ClientStatus == "running" && a.DesiredStatus == "run" {
				running++
			}
		}
		if running == 2 && replaced == 0 {
			replaced = time.Since(killed)
		}
		return replaced > 0 && down > 0, fmt.Sprintf("%+v", allocs)
	})
	t.Logf("client kill -> node down: %v; -> replacement running: %v",
		down.Round(time.Millisecond), replaced.Round(time.Millisecond))
	checkLostAllocs(t, c.srv.addr, onLost1, c.ids["lost2"])

	// (b) restart lost1 on its data dir.
	c.startClient("lost1")
	eventually(t, 30*time.Second, "lost1 ready again", func() (bool, string) {
		st, id := nodeStatus(c.srv.addr, "lost1")
		return st == "ready" && id == c.ids["lost1"], st + " " + id
	})
	eventually(t, 30*time.Second, "the lost allocation's task stopped on lost1", func() (bool, string) {
		return !alive(lostPID), fmt.Sprintf("pid %d alive", lostPID)
	})
	checkLostAllocs(t, c.srv.addr, onLost1, c.ids["lost2"])
}

// checkLostAllocs checks the job's allocations after lost1's loss: three in
// all (nothing placed twice), the lost one stopped, two running on lost2
// with distinct names.
func checkLostAllocs(t *testing.T, addr, lostID, lost2 string) {
	t.Helper()
	var allocs []struct {
		ID, Name, NodeID, DesiredStatus, ClientStatus, DesiredDescription string
	}
	if err := getJSON(addr+"/v1/job/e2e-lost/allocations", &allocs); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, a := range allocs {
		switch {
		case a.ID == lostID:
			if a.DesiredStatus != "stop" || a.ClientStatus != "lost" {
				t.Errorf("lost allocation %+v", a)
			}
		case a.NodeID != lost2 || a.DesiredStatus != "run" || a.ClientStatus != "running" || names[a.Name]:
			t.Errorf("allocation %+v (names so far %v)", a, names)
		default:
			names[a.Name] = true
		}
	}
	if len(allocs) != 3 || len(names) != 2 {
		t.Fatalf("want 3 allocations (2 running on lost2), got %+v", allocs)
	}
}

// startClientOf starts a client-only agent named name in datacenter dc
// whose client block lists servers (RPC addresses, in order), with raw_exec
// on. The caller kills it.
func startClientOf(t *testing.T, dir, name, dc string, servers []string) *serverProc {
	t.Helper()
	ports, err := testbin.FreePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	q := make([]string, len(servers))
	for i, s := range servers {
		q[i] = fmt.Sprintf("%q", s)
	}
	cfg := fmt.Sprintf(`name = %q
datacenter = %q
data_dir = %q
bind_addr = "127.0.0.1"
log_level = "debug"
ports {
  http = %d
  rpc  = %d
  serf = %d
}
client {
  enabled = true
  servers = [%s]
}
plugin "raw_exec" {
  config {
    enabled = true
  }
}
`, name, dc, filepath.Join(dir, "data"), ports[0], ports[1], ports[2], strings.Join(q, ", "))
	p, err := startServerAgent(dir, name, fmt.Sprintf("127.0.0.1:%d", ports[0]), fmt.Sprintf("127.0.0.1:%d", ports[1]), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestClientFailsOverToAnotherServer runs three servers (TTL 1 s, grace
// 1 s) and a client configured with the first two; it SIGKILLs the server
// the client uses (the first): the client fails over, its node stays ready
// through several TTLs, its running task is not restarted, and a scale-up
// reaches it through another server.
func TestClientFailsOverToAnotherServer(t *testing.T) {
	base := agentsDir(t)
	ports, err := testbin.FreePorts(9)
	if err != nil {
		t.Fatal(err)
	}
	var servers []*serverProc
	var joins, rpcs, https []string
	for i := range 3 {
		joins = append(joins, fmt.Sprintf("127.0.0.1:%d", ports[3*i+2]))
		rpcs = append(rpcs, fmt.Sprintf("127.0.0.1:%d", ports[3*i+1]))
		https = append(https, fmt.Sprintf("http://127.0.0.1:%d", ports[3*i]))
	}
	for i := range 3 {
		name := fmt.Sprintf("fs%d", i+1)
		dir := filepath.Join(base, name)
		cfg := serverAgentConfig(dir, name, "127.0.0.1", ports[3*i], ports[3*i+1], ports[3*i+2], 3, joins,
			`min_heartbeat_ttl = "1s"`, `heartbeat_grace = "1s"`)
		p, err := startServerAgent(dir, name, strings.TrimPrefix(https[i], "http://"), rpcs[i], cfg)
		if err != nil {
			t.Fatal(err)
		}
		servers = append(servers, p)
	}
	client := startClientOf(t, filepath.Join(base, "fo1"), "fo1", "dc-fo", rpcs[:2])
	t.Cleanup(func() {
		for _, p := range append(servers, client) {
			if !p.exited() {
				p.kill()
			}
			if t.Failed() {
				t.Logf("%s log (tail):\n%s", p.name, p.logTail())
			}
		}
	})
	eventually(t, 60*time.Second, "a leader and fo1 ready", func() (bool, string) {
		st, _ := nodeStatus(https[1], "fo1")
		return leaderOf(https[1]) != "" && st == "ready", "fo1 " + st
	})
	pidFile := filepath.Join(base, "pids")
	job := strings.Replace(lostJob("e2e-fo", "dc-fo", pidFile), "count = 2", "count = 1", 1)
	if r := nomadishAt(t, https[1], "job", "run", "-detach", writeFile(t, "fo.nomad.hcl", job)); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	eventually(t, 30*time.Second, "the task running", func() (bool, string) {
		p := taskPIDs(t, pidFile)
		return len(p) == 1, fmt.Sprint(p)
	})
	before := taskPIDs(t, pidFile)

	servers[0].kill()
	killed := time.Now()
	// Through about three TTL + grace periods, the node must stay ready.
	for time.Since(killed) < 8*time.Second {
		if st, _ := nodeStatus(https[1], "fo1"); st != "" && st != "ready" {
			t.Fatalf("fo1 %s %v after its server was killed", st, time.Since(killed))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if b, _ := os.ReadFile(client.logPath); !strings.Contains(string(b), "preferred server failed: failing over to the next one") {
		t.Fatalf("no failover in the client log")
	}
	job = strings.Replace(job, "count = 1", "count = 2", 1)
	if r := nomadishAt(t, https[2], "job", "run", "-detach", writeFile(t, "fo2.nomad.hcl", job)); r.code != 0 {
		t.Fatalf("job run (scale up): %v", r)
	}
	eventually(t, 30*time.Second, "the second task running", func() (bool, string) {
		p := taskPIDs(t, pidFile)
		return len(p) == 2, fmt.Sprint(p)
	})
	for id, pid := range before {
		if now := taskPIDs(t, pidFile)[id]; now != pid || !alive(pid) {
			t.Fatalf("task of %s restarted or gone: pid %d -> %d (alive %v)", id, pid, now, alive(pid))
		}
	}
}

// TestClientDisconnectReconnects runs a job with disconnect { lost_after =
// "60s", reconcile = "keep_original" } of count 2 over two clients and
// SIGSTOPs one client agent (its tasks run on): after the TTL its node is
// disconnected, its allocation unknown (still desired to run) and replaced
// on the other client. SIGCONT within lost_after: the node is ready again,
// the original allocation is running with its task never restarted, and
// the replacement is stopped.
func TestClientDisconnectReconnects(t *testing.T) {
	c := startLostCluster(t, "dc-disc", "dc1", "dc2")
	pidFile := filepath.Join(c.base, "pids")
	job := strings.Replace(lostJob("e2e-disc", "dc-disc", pidFile), "count = 2", `count = 2
    disconnect {
      lost_after = "60s"
      reconcile  = "keep_original"
    }`, 1)
	orig := c.runSpread("e2e-disc", job, pidFile)["dc1"]
	origPID := taskPIDs(t, pidFile)[orig]

	if err := syscall.Kill(c.agents["dc1"].cmd.Process.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	eventually(t, 30*time.Second, "dc1 disconnected, its alloc unknown and replaced on dc2", func() (bool, string) {
		st, _ := nodeStatus(c.srv.addr, "dc1")
		allocs := clusterAllocs(t, c.srv.addr, "e2e-disc")
		unknown, onDC2 := false, 0
		for _, a := range allocs {
			unknown = unknown || (a.ID == orig && a.ClientStatus == "unknown" && a.DesiredStatus == "run")
			if a.NodeID == c.ids["dc2"] && a.ClientStatus == "running" {
				onDC2++
			}
		}
		return st == "disconnected" && unknown && onDC2 == 2, st + fmt.Sprintf(" %+v", allocs)
	})
	t.Logf("SIGSTOP -> disconnected with the replacement running: %v", time.Since(stopped).Round(time.Millisecond))

	if err := syscall.Kill(c.agents["dc1"].cmd.Process.Pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "dc1 ready, the original running, the replacement stopped", func() (bool, string) {
		st, _ := nodeStatus(c.srv.addr, "dc1")
		allocs := clusterAllocs(t, c.srv.addr, "e2e-disc")
		live := map[string]string{}
		for _, a := range allocs {
			if a.DesiredStatus == "run" && a.ClientStatus == "running" {
				live[a.ID] = a.NodeID
			}
		}
		return st == "ready" && len(allocs) == 3 && len(live) == 2 && live[orig] == c.ids["dc1"], st + fmt.Sprintf(" %+v", allocs)
	})
	if now := taskPIDs(t, pidFile)[orig]; now != origPID || !alive(origPID) {
		t.Fatalf("original task restarted or gone: pid %d -> %d", origPID, now)
	}
}
