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

	"github.com/nomadish/nomadish/drivers/docker/dockertest"
	"github.com/nomadish/nomadish/drivers/qemu/qemutest"
)

// mixedJob is one group with a process (exec), a container (docker) and a
// virtual machine (qemu) side by side, on the datacenter dc.
const mixedJob = `job %q {
  datacenters = [%q]
  group "g" {
    task "proc" {
      driver       = "exec"
      kill_timeout = "2s"
      config {
        command = "/bin/sh"
        args    = ["-c", "echo %s uid=$(id -u); while true; do echo tick; sleep 0.2; done"]
      }
      resources {
        cpu    = 100
        memory = 32
      }
    }
    task "box" {
      driver       = "docker"
      kill_timeout = "2s"
      config {
        image   = %q
        command = "/bin/sh"
        args    = ["-c", "trap 'exit 0' TERM; while true; do echo tick; sleep 0.2; done"]
      }
      resources {
        cpu    = 100
        memory = 32
      }
    }
    task "vm" {
      driver       = "qemu"
      kill_timeout = "2s"
      config {
        kernel            = %q
        initrd            = %q
        append            = "console=ttyS0 quiet"
        accelerator       = "tcg"
        graceful_shutdown = true
      }
      resources {
        cpu    = 100
        memory = 256
      }
    }
  }
}
`

// TestMixedDriversOneGroupSurviveClientRestart runs a process, a container
// and a VM in one allocation on a client agent of its own, kills that agent
// with SIGKILL and starts it again: all three tasks are re-attached (same
// pid, same container, same qemu pid, one Started event each), their logs
// keep flowing, and stopping the job ends all three.
func TestMixedDriversOneGroupSurviveClientRestart(t *testing.T) {
	id := uniqueID("e2e-mixed")
	ensureTestImage(t)
	kernel, err := qemutest.Kernel()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(agentsDir(t), "mixed")
	initrd := filepath.Join(qemuImageDir, "mixed-initrd.gz")
	if err := os.MkdirAll(qemuImageDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := qemutest.WriteInitramfs(initrd, qemutest.Busybox, qemutest.InitScript(qemuMarker)); err != nil {
		t.Fatal(err)
	}
	marker := fmt.Sprintf("mixed-exec-%d", time.Now().UnixNano())
	dc := "dc-mixed"
	c, err := startAgent(dir, false, dev.rpcAddr, `datacenter = "`+dc+`"`, qemuPluginBlock())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		retireNodesIn(t, dc)
		c.stop()
		if t.Failed() {
			t.Logf("client log (tail):\n%s", c.logTail())
		}
	})
	if err := c.waitReady(2, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	job := fmt.Sprintf(mixedJob, id, dc, marker, dockertest.Image, kernel, initrd)
	t.Cleanup(func() {
		nomadish(t, "job", "stop", "-purge", id)
		removeJobContainers(t, id)
	})
	start := time.Now()
	if r := nomadish(t, "job", "run", "-detach", writeFile(t, "mixed.nomad.hcl", job)); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	allocs := waitAllocs(t, id, 1, "running", func(a allocRow) bool { return a.ClientStatus == "running" })
	t.Logf("job run -> running: %v", time.Since(start))
	alloc := allocs[0].ID
	eventually(t, 90*time.Second, "every task's first output", func() (bool, string) {
		p, v := taskStdout(c.addr, alloc, "proc"), taskStdout(c.addr, alloc, "vm")
		return strings.Contains(p, marker) && strings.Contains(taskStdout(c.addr, alloc, "box"), "tick") && strings.Contains(v, qemuMarker),
			fmt.Sprintf("proc %q; vm %q", p, v)
	})
	t.Logf("job run -> output of all three tasks: %v", time.Since(start))
	procPid, vmPID, box := cmdlinePid(marker), vmPid(initrd), jobContainers(t, id)
	if procPid == 0 || vmPID == 0 || box == "" || strings.Contains(box, "\n") {
		t.Fatalf("exec pid %d, qemu pid %d, containers %q", procPid, vmPID, box)
	}
	t.Cleanup(func() { _ = syscall.Kill(procPid, syscall.SIGKILL); _ = syscall.Kill(vmPID, syscall.SIGKILL) })

	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-c.done
	c, err = startAgent(dir, false, dev.rpcAddr, `datacenter = "`+dc+`"`, qemuPluginBlock())
	if err != nil {
		t.Fatal(err)
	}
	expectTasksReattached(t, c, alloc, map[string]string{"proc": "tick\n", "box": "tick\n", "vm": qemutest.Tick})
	if p, v, b := cmdlinePid(marker), vmPid(initrd), jobContainers(t, id); p != procPid || v != vmPID || b != box {
		t.Fatalf("after the restart: exec pid %d (was %d), qemu pid %d (was %d), container %q (was %q)", p, procPid, v, vmPID, b, box)
	}

	if r := nomadish(t, "job", "stop", id); r.code != 0 {
		t.Fatalf("job stop: %v", r)
	}
	eventually(t, 30*time.Second, "all three tasks ended", func() (bool, string) {
		p, v, b := cmdlinePid(marker), vmPid(initrd), jobContainers(t, id)
		return p == 0 && v == 0 && b == "", fmt.Sprintf("exec pid %d, qemu pid %d, containers %q", p, v, b)
	})
}

// expectTasksReattached waits until the restarted client c reports every
// task of the alloc running as before (one Started event, no restarts) and
// each task's log, served by c, grows by another line holding its tick.
func expectTasksReattached(t *testing.T, c *agentProc, allocID string, ticks map[string]string) {
	t.Helper()
	eventually(t, 30*time.Second, "restarted client reports the tasks", func() (bool, string) {
		var a struct {
			ClientStatus string
			TaskStates   map[string]struct {
				State    string
				Restarts uint64
				Events   []struct{ Type string }
			}
		}
		if err := getJSON(dev.addr+"/v1/allocation/"+allocID, &a); err != nil {
			return false, err.Error()
		}
		for name := range ticks {
			ts := a.TaskStates[name]
			started := 0
			for _, ev := range ts.Events {
				if ev.Type == "Started" {
					started++
				}
			}
			if ts.State != "running" || started != 1 || ts.Restarts != 0 {
				return false, fmt.Sprintf("%s: %+v", name, ts)
			}
		}
		return a.ClientStatus == "running" && !c.exited(), a.ClientStatus
	})
	for name, tick := range ticks {
		first := -1
		eventually(t, 30*time.Second, name+" logs served", func() (bool, string) {
			if out := taskStdout(c.addr, allocID, name); out != "" {
				first = strings.Count(out, tick)
			}
			return first >= 0, "no logs yet"
		})
		eventually(t, 30*time.Second, name+" log lines after the restart", func() (bool, string) {
			n := strings.Count(taskStdout(c.addr, allocID, name), tick)
			return n > first, fmt.Sprintf("%d lines, %d at first", n, first)
		})
	}
}

// taskStdout reads a task's stdout through an agent's HTTP API ("" while
// it cannot be read).
func taskStdout(addr, allocID, task string) string {
	resp, err := http.Get(addr + "/v1/client/fs/logs/" + allocID + "?task=" + task + "&type=stdout&plain=true")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return ""
	}
	return string(b)
}

// cmdlinePid is the live (not zombie) process whose command line holds s
// and whose command is sh (0: none).
func cmdlinePid(s string) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.HasPrefix(string(b), "/bin/sh\x00") || !strings.Contains(string(b), s) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && !strings.Contains(string(st), ") Z ") {
			return pid
		}
	}
	return 0
}
