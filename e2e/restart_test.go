package e2e

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestClientRestartReattaches kills a client agent with SIGKILL while its
// task runs, starts it again on the same data dir, and checks the invariant
// of DESIGN.md: the task is re-attached, not restarted (same process, one
// "Started" event), and the restarted client still controls it (stopping
// the job kills that process).
func TestClientRestartReattaches(t *testing.T) {
	id := uniqueID("e2e-reattach")
	dir := filepath.Join(agentsDir(t), "restarter")
	pidFile := filepath.Join(dir, "task.pid")
	dc := `datacenter = "dc-restart"`
	c, err := startAgent(dir, false, dev.rpcAddr, dc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		retireNodesIn(t, "dc-restart")
		c.stop()
		if t.Failed() {
			t.Logf("client log (tail):\n%s", c.logTail())
		}
	})
	if err := c.waitReady(2, 30*time.Second); err != nil {
		t.Fatal(err)
	}

	job := strings.Replace(rawExecJob(id, "service", "/bin/sh",
		[]string{"-c", "echo $$ > " + pidFile + "; while true; do echo tick; sleep 0.1; done"}, 32),
		`type = "service"`, `type = "service"`+"\n  datacenters = [\"dc-restart\"]", 1)
	if r := nomadish(t, "job", "run", writeFile(t, "reattach.nomad.hcl", job)); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	t.Cleanup(func() { nomadish(t, "job", "stop", "-purge", id) })
	allocs := waitAllocs(t, id, 1, "running", func(a allocRow) bool { return a.ClientStatus == "running" })
	pid := readPid(t, pidFile)
	// Tasks live in their own process groups: never leave one behind when the
	// test fails half-way.
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })

	// SIGKILL the agent alone: its plugins notice and exit; the task lives on
	// in its own process group.
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-c.done
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("task %d died with its client: %v", pid, err)
	}

	c, err = startAgent(dir, false, dev.rpcAddr, dc)
	if err != nil {
		t.Fatal(err)
	}
	expectReattached(t, c, allocs[0].ID)
	if got := readPid(t, pidFile); got != pid {
		t.Fatalf("task restarted: pid %d, was %d", got, pid)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("task %d not running after the client restart: %v", pid, err)
	}

	if r := nomadish(t, "job", "stop", id); r.code != 0 {
		t.Fatalf("job stop: %v", r)
	}
	eventually(t, 30*time.Second, "task process killed by the restarted client", func() (bool, string) {
		return syscall.Kill(pid, 0) != nil, "still running"
	})
}

// expectReattached waits until the restarted client c runs the alloc's task
// "t" as before its restart (running, one "Started" event, no restarts) and
// serves its logs, which keep growing: log capture resumed with the
// re-attached task, which prints "tick" lines.
func expectReattached(t *testing.T, c *agentProc, allocID string) {
	t.Helper()
	eventually(t, 30*time.Second, "restarted client reports the task", func() (bool, string) {
		var a struct {
			ClientStatus string
			TaskStates   map[string]struct {
				Restarts uint64
				Events   []struct{ Type string }
			}
		}
		if err := getJSON(dev.addr+"/v1/allocation/"+allocID, &a); err != nil {
			return false, err.Error()
		}
		started := 0
		for _, ev := range a.TaskStates["t"].Events {
			if ev.Type == "Started" {
				started++
			}
		}
		return a.ClientStatus == "running" && started == 1 && a.TaskStates["t"].Restarts == 0 && !c.exited(),
			fmt.Sprintf("%+v", a)
	})
	first := -1
	eventually(t, 30*time.Second, "restarted client serves the task's logs", func() (bool, string) {
		first = countTicks(t, c.addr, allocID)
		return first >= 0, "no logs yet"
	})
	eventually(t, 30*time.Second, "log lines after the restart", func() (bool, string) {
		n := countTicks(t, c.addr, allocID)
		return n > first, fmt.Sprintf("%d tick lines, %d at first", n, first)
	})
}

// countTicks reads the task's stdout through the client agent's HTTP API
// and counts its lines (-1 while the agent cannot serve them).
func countTicks(t *testing.T, addr, allocID string) int {
	t.Helper()
	resp, err := http.Get(addr + "/v1/client/fs/logs/" + allocID + "?task=t&type=stdout&plain=true")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return -1
	}
	return strings.Count(string(b), "tick\n")
}

// readPid waits for the task to write its pid and returns it.
func readPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	eventually(t, 30*time.Second, "task pid file", func() (bool, string) {
		b, err := os.ReadFile(path)
		if err != nil {
			return false, err.Error()
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0, string(b)
	})
	return pid
}
