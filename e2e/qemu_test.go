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

	"github.com/nomadish/nomadish/drivers/qemu/qemutest"
)

// qemuImageDir holds the test's initramfs; the dev agent's qemu plugin may
// read it and /boot (image_paths).
var qemuImageDir string

// qemuPluginConfig returns the dev agent's plugin "qemu" block; TestMain
// appends it to the agent config.
func qemuPluginConfig(tmp string) string {
	qemuImageDir = filepath.Join(tmp, "qemu-images")
	return qemuPluginBlock()
}

func qemuPluginBlock() string {
	return fmt.Sprintf("plugin \"qemu\" {\n  config {\n    image_paths = [%q, %q]\n  }\n}\n", "/boot", qemuImageDir)
}

// qemuGuest writes the test initramfs as name in qemuImageDir and returns
// the job file of a service job booting it with the host's kernel.
func qemuGuest(t *testing.T, name, jobID string) (job, initrd string) {
	t.Helper()
	kernel, err := qemutest.Kernel()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(qemuImageDir, 0o755); err != nil {
		t.Fatal(err)
	}
	initrd = filepath.Join(qemuImageDir, name)
	if err := qemutest.WriteInitramfs(initrd, qemutest.Busybox, qemutest.InitScript(qemuMarker)); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(qemuJob, jobID, kernel, initrd), initrd
}

const qemuMarker = "nomadish-e2e-guest-up"

const qemuJob = `job %q {
  group "g" {
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
        cpu    = 500
        memory = 256
      }
    }
  }
}
`

// A service job boots a real VM (Debian kernel + busybox initramfs, TCG)
// through the qemu plugin of the dev agent: the serial console reaches
// `alloc logs`, and stopping the job ends the VM.
func TestQemuServiceJob(t *testing.T) {
	id := uniqueID("e2e-qemu")
	job, initrd := qemuGuest(t, "service-initrd.gz", id)
	requireQemuNode(t)
	path := writeFile(t, "qemu.nomad.hcl", job)
	t.Cleanup(func() { nomadish(t, "job", "stop", "-purge", id) })
	start := time.Now()
	if r := nomadish(t, "job", "run", "-detach", path); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	allocs := waitAllocs(t, id, 1, "running", func(a allocRow) bool { return a.ClientStatus == "running" })
	t.Logf("job run -> running: %v", time.Since(start))
	short := allocs[0].ID[:8]
	eventually(t, 90*time.Second, "the guest's marker in the task log", func() (bool, string) {
		r := nomadish(t, "alloc", "logs", short, "vm")
		return strings.Contains(r.out, qemuMarker), r.String()
	})
	t.Logf("job run -> guest marker in alloc logs: %v", time.Since(start))
	if !vmRunning(initrd) {
		t.Fatal("no qemu process booting the test initrd")
	}
	if r := nomadish(t, "job", "stop", "-purge", id); r.code != 0 {
		t.Fatalf("job stop: %v", r)
	}
	eventually(t, 30*time.Second, "the VM ended", func() (bool, string) { return !vmRunning(initrd), "qemu still running" })
}

// requireQemuNode fails unless a node reports a healthy qemu driver with
// its version and kvm attributes.
func requireQemuNode(t *testing.T) {
	t.Helper()
	var nodes []struct{ ID string }
	if err := getJSON(dev.addr+"/v1/nodes", &nodes); err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, n := range nodes {
		var node struct {
			Attributes map[string]string
			Drivers    map[string]struct{ Detected, Healthy bool }
		}
		if err := getJSON(dev.addr+"/v1/node/"+n.ID, &node); err != nil {
			t.Fatal(err)
		}
		a := node.Attributes
		if a["driver.qemu"] == "1" && a["driver.qemu.version"] != "" && a["driver.qemu.kvm"] != "" && node.Drivers["qemu"].Healthy {
			return
		}
		seen = append(seen, fmt.Sprintf("%s: qemu %+v, driver.qemu.version %q", n.ID, node.Drivers["qemu"], a["driver.qemu.version"]))
	}
	t.Fatalf("no node with a healthy qemu driver: %v", seen)
}

// vmRunning reports whether a live process has initrd on its command line.
func vmRunning(initrd string) bool { return vmPid(initrd) != 0 }

// vmPid is the live process with initrd on its command line (0: none).
func vmPid(initrd string) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(b), initrd) {
			continue
		}
		st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if pid, perr := strconv.Atoi(e.Name()); perr == nil && err == nil && !strings.Contains(string(st), ") Z ") {
			return pid
		}
	}
	return 0
}

const qemuRefusedJob = `job %q {
  type = "batch"
  group "g" {
    restart {
      attempts = 0
      mode     = "fail"
    }
    reschedule {
      attempts  = 0
      unlimited = false
    }
    task "vm" {
      driver = "qemu"
      config {
        kernel = "/etc/hostname"
      }
      resources {
        cpu    = 100
        memory = 64
      }
    }
  }
}
`

// A kernel outside the alloc dir and the plugin's image_paths is refused:
// the task fails with a Driver Failure event naming image_paths.
func TestQemuImagePathRefused(t *testing.T) {
	id := uniqueID("e2e-qemu-refused")
	path := writeFile(t, "qemu-refused.nomad.hcl", fmt.Sprintf(qemuRefusedJob, id))
	t.Cleanup(func() { nomadish(t, "job", "stop", "-purge", id) })
	if r := nomadish(t, "job", "run", "-detach", path); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	allocs := waitAllocs(t, id, 1, "failed", func(a allocRow) bool { return a.ClientStatus == "failed" })
	r := nomadish(t, "alloc", "status", allocs[0].ID[:8])
	if r.code != 0 || !strings.Contains(r.out, "Driver Failure") || !strings.Contains(r.out, "image_paths") {
		t.Fatalf("alloc status lacks the refusal: %v", r)
	}
}

// TestQemuClientRestartReattaches kills a client agent with SIGKILL while
// its VM runs and starts it again: the VM is re-attached, not restarted
// (same qemu pid, one Started event), its console log keeps growing, and
// the restarted client stops it.
func TestQemuClientRestartReattaches(t *testing.T) {
	id := uniqueID("e2e-qemu-reattach")
	dir := filepath.Join(agentsDir(t), "qemu-restarter")
	dc := `datacenter = "dc-qemu-restart"`
	c, err := startAgent(dir, false, dev.rpcAddr, dc, qemuPluginBlock())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		retireNodesIn(t, "dc-qemu-restart")
		c.stop()
		if t.Failed() {
			t.Logf("client log (tail):\n%s", c.logTail())
		}
	})
	if err := c.waitReady(2, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	job, initrd := qemuGuest(t, "restart-initrd.gz", id)
	job = strings.Replace(job, `group "g" {`, "datacenters = [\"dc-qemu-restart\"]\n  group \"g\" {", 1)
	start := time.Now()
	if r := nomadish(t, "job", "run", "-detach", writeFile(t, "qemu-reattach.nomad.hcl", job)); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	t.Cleanup(func() { nomadish(t, "job", "stop", "-purge", id) })
	allocs := waitAllocs(t, id, 1, "running", func(a allocRow) bool { return a.ClientStatus == "running" })
	eventually(t, 90*time.Second, "the guest's console ticks", func() (bool, string) {
		return consoleTicks(c.addr, allocs[0].ID) > 0, "no ticks"
	})
	t.Logf("job run -> guest ticking: %v", time.Since(start))
	pid := vmPid(initrd)
	if pid == 0 {
		t.Fatal("no qemu process booting the test initrd")
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })

	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-c.done
	if vmPid(initrd) != pid {
		t.Fatalf("VM %d died with its client", pid)
	}
	restart := time.Now()
	if c, err = startAgent(dir, false, dev.rpcAddr, dc, qemuPluginBlock()); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "restarted client reports the VM running, started once", func() (bool, string) {
		var a struct {
			ClientStatus string
			TaskStates   map[string]struct{ Events []struct{ Type string } }
		}
		if err := getJSON(dev.addr+"/v1/allocation/"+allocs[0].ID, &a); err != nil {
			return false, err.Error()
		}
		started := 0
		for _, ev := range a.TaskStates["vm"].Events {
			if ev.Type == "Started" {
				started++
			}
		}
		return a.ClientStatus == "running" && started == 1 && !c.exited(), fmt.Sprintf("%+v", a)
	})
	first := -1
	eventually(t, 30*time.Second, "restarted client serves the console log", func() (bool, string) {
		first = consoleTicks(c.addr, allocs[0].ID)
		return first >= 0, "no logs yet"
	})
	eventually(t, 30*time.Second, "console lines after the restart", func() (bool, string) {
		n := consoleTicks(c.addr, allocs[0].ID)
		return n > first, fmt.Sprintf("%d ticks, %d at first", n, first)
	})
	t.Logf("client restart -> re-attached, console resumed: %v", time.Since(restart))
	if got := vmPid(initrd); got != pid {
		t.Fatalf("VM restarted: qemu pid %d, was %d", got, pid)
	}
	if r := nomadish(t, "job", "stop", id); r.code != 0 {
		t.Fatalf("job stop: %v", r)
	}
	eventually(t, 30*time.Second, "VM stopped by the restarted client", func() (bool, string) {
		return !vmRunning(initrd), "qemu still running"
	})
}

// consoleTicks counts the guest's tick lines in the task's stdout, read
// through the client agent's HTTP API (-1 while it cannot serve them).
func consoleTicks(addr, allocID string) int {
	resp, err := http.Get(addr + "/v1/client/fs/logs/" + allocID + "?task=vm&type=stdout&plain=true")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return -1
	}
	return strings.Count(string(b), qemutest.Tick)
}
