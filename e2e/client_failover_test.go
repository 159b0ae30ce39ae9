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

// TestClientKilledAllocsReplaced runs its own server (short heartbeat TTLs)
// and two client agents, lost1 and lost2, with a service job of count 2, one
// allocation on each. (a) lost1's agent is SIGKILLed (alone: its tasks
// survive, as when only the agent crashes): its node goes down after the
// TTL, its allocation becomes lost and is replaced on lost2; counts stay
// right and nothing is placed twice. (b) lost1 restarts on its data dir:
// its node is ready again, the lost allocation's task is stopped on it
// (process gone), and the job keeps its two allocations on lost2.
func TestClientKilledAllocsReplaced(t *testing.T) {
	base := t.TempDir()
	srv, err := startAgent(filepath.Join(base, "server"), true, "", fastTTL)
	if err != nil {
		t.Fatal(err)
	}
	agents := map[string]*agentProc{}
	t.Cleanup(func() {
		for name, a := range agents {
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
	start := func(name string) {
		a, err := startAgent(filepath.Join(base, name), false, srv.rpcAddr, `datacenter = "dc-lost"`)
		if err != nil {
			t.Fatal(err)
		}
		agents[name] = a
	}
	start("lost1")
	start("lost2")
	ids := map[string]string{}
	eventually(t, 30*time.Second, "lost1 and lost2 ready", func() (bool, string) {
		for _, n := range []string{"lost1", "lost2"} {
			st, id := nodeStatus(srv.addr, n)
			if st != "ready" {
				return false, n + " " + st
			}
			ids[n] = id
		}
		return true, ""
	})

	pidFile := filepath.Join(base, "pids")
	if r := nomadishAt(t, srv.addr, "job", "run", "-detach", writeFile(t, "lost.nomad.hcl", lostJob("e2e-lost", "dc-lost", pidFile))); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	var onLost1 string
	eventually(t, 30*time.Second, "one running allocation on each client", func() (bool, string) {
		allocs := clusterAllocs(t, srv.addr, "e2e-lost")
		nodes := map[string]string{}
		for _, a := range allocs {
			if a.ClientStatus == "running" {
				nodes[a.NodeID] = a.ID
			}
		}
		onLost1 = nodes[ids["lost1"]]
		return len(allocs) == 2 && len(nodes) == 2, fmt.Sprintf("%+v", allocs)
	})
	eventually(t, 10*time.Second, "task pids written", func() (bool, string) {
		p := taskPIDs(t, pidFile)
		return len(p) == 2, fmt.Sprint(p)
	})
	lostPID := taskPIDs(t, pidFile)[onLost1]

	// (a) SIGKILL lost1's agent only.
	killed := time.Now()
	if err := agents["lost1"].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-agents["lost1"].done
	var down, replaced time.Duration
	eventually(t, 30*time.Second, "lost1 down and its allocation replaced on lost2", func() (bool, string) {
		if st, _ := nodeStatus(srv.addr, "lost1"); st == "down" && down == 0 {
			down = time.Since(killed)
		}
		allocs := clusterAllocs(t, srv.addr, "e2e-lost")
		running := 0
		for _, a := range allocs {
			if a.NodeID == ids["lost2"] && a.ClientStatus == "running" && a.DesiredStatus == "run" {
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
	checkLostAllocs(t, srv.addr, onLost1, ids["lost2"])

	// (b) restart lost1 on its data dir.
	start("lost1")
	eventually(t, 30*time.Second, "lost1 ready again", func() (bool, string) {
		st, id := nodeStatus(srv.addr, "lost1")
		return st == "ready" && id == ids["lost1"], st + " " + id
	})
	eventually(t, 30*time.Second, "the lost allocation's task stopped on lost1", func() (bool, string) {
		return !alive(lostPID), fmt.Sprintf("pid %d alive", lostPID)
	})
	checkLostAllocs(t, srv.addr, onLost1, ids["lost2"])
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
