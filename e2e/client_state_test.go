package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/docker/dockertest"
)

// clientStateJob has two groups, each one task "t" printing ticks: a
// raw_exec one whose command line carries marker (to count its copies) and
// a docker one.
func clientStateJob(id, dc, marker, pidFile string) string {
	return fmt.Sprintf(`job %[1]q {
  type        = "service"
  datacenters = [%[2]q]
  group "raw" {
    task "t" {
      driver       = "raw_exec"
      kill_timeout = "1s"
      config {
        command = "/bin/sh"
        args    = ["-c", "echo $$ > %[4]s; while true; do echo tick; sleep 0.1; done # %[3]s"]
      }
      resources {
        cpu    = 100
        memory = 32
      }
    }
  }
  group "box" {
    task "t" {
      driver       = "docker"
      kill_timeout = "1s"
      config {
        image   = %[5]q
        command = "/bin/sh"
        args    = ["-c", "trap 'exit 0' TERM; while true; do echo tick; sleep 0.1; done"]
      }
      resources {
        cpu    = 100
        memory = 32
      }
    }
  }
}
`, id, dc, marker, pidFile, dockertest.Image)
}

// TestClientStateLost: a client whose state file is cut short (the case
// that used to kill the agent with SIGBUS inside bbolt) or deleted comes
// back up, logs the corrupt file, and re-attaches to the very tasks it ran
// (same pid, same container), exactly one copy of each; stopping the job
// then stops them.
func TestClientStateLost(t *testing.T) {
	ensureTestImage(t)
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, path string)
		logs   string // what the restarted agent's log must say ("" nothing)
	}{
		{"truncated", truncateState, "client state file is corrupt"},
		{"deleted", func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) { clientStateLost(t, tc.name, tc.damage, tc.logs) })
	}
}

func clientStateLost(t *testing.T, name string, damage func(*testing.T, string), wantLog string) {
	dir := filepath.Join(agentsDir(t), "state-"+name)
	dcName := "dc-state-" + name
	dc := fmt.Sprintf("datacenter = %q", dcName)
	jobID := uniqueID("e2e-state-" + name)
	marker := fmt.Sprintf("nomadish-e2e-state-%s-%d", name, time.Now().UnixNano())
	pidFile := filepath.Join(dir, "task.pid")
	c, err := startAgent(dir, false, dev.rpcAddr, dc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		retireNodesIn(t, dcName)
		c.stop()
		if t.Failed() {
			t.Logf("client log (tail):\n%s", c.logTail())
		}
	})
	if err := c.waitReady(2, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		nomadish(t, "job", "stop", "-purge", jobID)
		removeJobContainers(t, jobID)
	})
	if r := nomadish(t, "job", "run", "-detach", writeFile(t, jobID+".nomad.hcl", clientStateJob(jobID, dcName, marker, pidFile))); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	allocs := waitAllocs(t, jobID, 2, "running", func(a allocRow) bool { return a.ClientStatus == "running" })
	pid := readPid(t, pidFile)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	container := jobContainers(t, jobID)
	if container == "" || strings.Contains(container, "\n") {
		t.Fatalf("want one container, got %q", container)
	}

	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-c.done
	state := filepath.Join(dir, "data", "client", "state.db")
	damage(t, state)

	c, err = startAgent(dir, false, dev.rpcAddr, dc)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range allocs {
		expectReattached(t, c, a.ID)
	}
	if got := readPid(t, pidFile); got != pid {
		t.Fatalf("raw_exec task started again: pid %d, was %d", got, pid)
	}
	if n := countProcs(marker); n != 1 {
		t.Fatalf("%d copies of the raw_exec task run, want 1", n)
	}
	if got := jobContainers(t, jobID); got != container {
		t.Fatalf("containers after the restart %q, want the same one %s", got, container)
	}
	logb, _ := os.ReadFile(c.logPath)
	if wantLog != "" {
		if !bytes.Contains(logb, []byte(wantLog)) || !bytes.Contains(logb, []byte(state)) {
			t.Fatalf("agent log does not report the corrupt state file %s", state)
		}
		if m, _ := filepath.Glob(state + ".corrupt-*"); len(m) != 1 {
			t.Fatalf("corrupt file not kept aside: %v", m)
		}
	}

	if r := nomadish(t, "job", "stop", jobID); r.code != 0 {
		t.Fatalf("job stop: %v", r)
	}
	eventually(t, 30*time.Second, "re-attached tasks stopped by the restarted client", func() (bool, string) {
		n, ctr := countProcs(marker), jobContainers(t, jobID)
		return n == 0 && ctr == "", fmt.Sprintf("%d processes, containers %q", n, ctr)
	})
}

// truncateState cuts the state file to 1 MiB, or to half its size when it
// is smaller: either way shorter than the pages its meta counts.
func truncateState(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	size := min(fi.Size()/2, 1<<20)
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
	t.Logf("state file %d bytes, truncated to %d", fi.Size(), size)
}

// countProcs counts the processes whose command line contains marker,
// leaving out a shell's forked child that has not exec'd yet (its parent
// has the marker too).
func countProcs(marker string) int {
	has := func(pid string) bool {
		b, err := os.ReadFile("/proc/" + pid + "/cmdline")
		return err == nil && bytes.Contains(b, []byte(marker))
	}
	n := 0
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		pid := filepath.Base(p)
		if !has(pid) {
			continue
		}
		stat, err := os.ReadFile(p + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) > 1 && has(f[1]) {
			continue
		}
		n++
	}
	return n
}

// TestClientStateLostJobStopped: the job is stopped while its client is
// down and the client's state file is gone. The restarted client knows
// nothing of the task, but its allocation dir is still there: it finds the
// task through its driver and stops it instead of leaving it running.
func TestClientStateLostJobStopped(t *testing.T) {
	dir := filepath.Join(agentsDir(t), "state-stopped")
	dc := `datacenter = "dc-state-stopped"`
	jobID := uniqueID("e2e-state-stopped")
	marker := fmt.Sprintf("nomadish-e2e-state-stopped-%d", time.Now().UnixNano())
	pidFile := filepath.Join(dir, "task.pid")
	c, err := startAgent(dir, false, dev.rpcAddr, dc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		retireNodesIn(t, "dc-state-stopped")
		c.stop()
		if t.Failed() {
			t.Logf("client log (tail):\n%s", c.logTail())
		}
	})
	if err := c.waitReady(2, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	job := strings.Replace(rawExecJob(jobID, "service", "/bin/sh",
		[]string{"-c", "echo $$ > " + pidFile + "; while true; do sleep 0.1; done # " + marker}, 32),
		`type = "service"`, `type = "service"`+"\n  datacenters = [\"dc-state-stopped\"]", 1)
	t.Cleanup(func() { nomadish(t, "job", "stop", "-purge", jobID) })
	if r := nomadish(t, "job", "run", "-detach", writeFile(t, jobID+".nomad.hcl", job)); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	waitAllocs(t, jobID, 1, "running", func(a allocRow) bool { return a.ClientStatus == "running" })
	pid := readPid(t, pidFile)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })

	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-c.done
	if err := os.Remove(filepath.Join(dir, "data", "client", "state.db")); err != nil {
		t.Fatal(err)
	}
	if r := nomadish(t, "job", "stop", "-detach", jobID); r.code != 0 {
		t.Fatalf("job stop: %v", r)
	}
	if n := countProcs(marker); n != 1 {
		t.Fatalf("%d copies of the task before the client restart, want 1", n)
	}

	c, err = startAgent(dir, false, dev.rpcAddr, dc)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the stopped job's task killed by the restarted client", func() (bool, string) {
		n := countProcs(marker)
		return n == 0, fmt.Sprintf("%d copies running", n)
	})
	if b, _ := os.ReadFile(c.logPath); !bytes.Contains(b, []byte("re-discovered")) {
		t.Fatalf("client log does not show the task re-discovered before it was stopped")
	}
}
