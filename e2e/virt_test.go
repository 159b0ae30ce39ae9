package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/digitalocean/go-libvirt"
	"github.com/digitalocean/go-libvirt/socket/dialers"

	"github.com/nomadish/nomadish/drivers/docker/dockertest"
	"github.com/nomadish/nomadish/drivers/qemu/qemutest"
	"github.com/nomadish/nomadish/drivers/virt"
	"github.com/nomadish/nomadish/drivers/virt/virttest"
)

// virtMixedJob is one group with a process (exec), a container (docker)
// and a libvirt domain (virt) side by side, on the datacenter dc.
const virtMixedJob = `job %q {
  datacenters = [%q]
  group "g" {
    task "proc" {
      driver       = "exec"
      kill_timeout = "2s"
      config {
        command = "/bin/sh"
        args    = ["-c", "echo %s; while true; do echo tick; sleep 0.2; done"]
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
      driver       = "virt"
      kill_timeout = "2s"
      config {
        kernel      = %q
        initrd      = %q
        cmdline     = "console=ttyS0 quiet"
        accelerator = "tcg"
      }
      resources {
        cpu    = 100
        memory = 256
      }
    }
  }
}
`

func virtPluginBlock() string {
	return fmt.Sprintf("plugin \"virt\" {\n  config {\n    image_paths = [%q, %q]\n  }\n}\n", "/boot", qemuImageDir)
}

// libvirtDomain returns the state and UUID of the named domain, or ok
// false when libvirtd has no such domain. libvirtd is required.
func libvirtDomain(t *testing.T, name string) (state libvirt.DomainState, uuid string, ok bool) {
	t.Helper()
	l := libvirt.NewWithDialer(dialers.NewLocal(dialers.WithSocket(virt.DefaultSocket)))
	if err := l.ConnectToURI(libvirt.QEMUSystem); err != nil {
		t.Fatalf("libvirtd is required: %v\n%s", err, virttest.DaemonState())
	}
	defer l.Disconnect()
	dom, err := l.DomainLookupByName(name)
	if libvirt.IsNotFound(err) {
		return 0, "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := l.DomainGetState(dom, 0)
	if err != nil {
		t.Fatal(err)
	}
	return libvirt.DomainState(s), fmt.Sprintf("%x", dom.UUID), true
}

// TestVirtMixedGroupSurvivesClientRestart runs an exec process, a docker
// container and a libvirt domain in one allocation on a client agent of its
// own; the VM's console reaches `alloc logs`; `alloc exec` into the VM,
// which runs no guest agent, is a clear error. The client is killed with
// SIGKILL and started again: every task is re-attached (the same domain,
// still running, one Started event each) and its log keeps flowing.
// Stopping the job ends all three and leaves no domain behind.
func TestVirtMixedGroupSurvivesClientRestart(t *testing.T) {
	id := uniqueID("e2e-virt-mixed")
	virttest.RequireDaemon(t)
	ensureTestImage(t)
	kernel, err := qemutest.Kernel()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(qemuImageDir, 0o755); err != nil {
		t.Fatal(err)
	}
	initrd := filepath.Join(qemuImageDir, "virt-mixed-initrd.gz")
	if err := qemutest.WriteInitramfs(initrd, qemutest.Busybox, qemutest.InitScript(qemuMarker)); err != nil {
		t.Fatal(err)
	}
	marker := fmt.Sprintf("virt-mixed-exec-%d", time.Now().UnixNano())
	dir, dc := filepath.Join(agentsDir(t), "virt-mixed"), "dc-virt-mixed"
	c, err := startAgent(dir, false, dev.rpcAddr, `datacenter = "`+dc+`"`, virtPluginBlock())
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
	t.Cleanup(func() {
		nomadish(t, "job", "stop", "-purge", id)
		removeJobContainers(t, id)
	})
	job := fmt.Sprintf(virtMixedJob, id, dc, marker, dockertest.Image, kernel, initrd)
	start := time.Now()
	if r := nomadish(t, "job", "run", "-detach", writeFile(t, "virt-mixed.nomad.hcl", job)); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	allocs := waitAllocs(t, id, 1, "running", func(a allocRow) bool { return a.ClientStatus == "running" })
	alloc := allocs[0].ID
	eventually(t, 90*time.Second, "every task's first output", func() (bool, string) {
		p, v := taskStdout(c.addr, alloc, "proc"), taskStdout(c.addr, alloc, "vm")
		return strings.Contains(p, marker) && strings.Contains(taskStdout(c.addr, alloc, "box"), "tick") && strings.Contains(v, qemuMarker),
			fmt.Sprintf("proc %q; vm %q", p, v)
	})
	t.Logf("job run -> output of all three tasks: %v", time.Since(start))
	name := virt.DomainName(alloc, "vm")
	state, uuid, ok := libvirtDomain(t, name)
	if !ok || state != libvirt.DomainRunning {
		t.Fatalf("domain %s: state %v, defined %v", name, state, ok)
	}
	procPid, box := cmdlinePid(marker), jobContainers(t, id)
	// The test guest runs no QEMU guest agent: alloc exec says so.
	if r := nomadishIn(t, "", "alloc", "exec", "-task", "vm", alloc, "/bin/true"); r.code == 0 || !strings.Contains(r.errOut, "guest agent") {
		t.Errorf("alloc exec into a VM without a guest agent: %v", r)
	}

	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-c.done
	if s, _, ok := libvirtDomain(t, name); !ok || s != libvirt.DomainRunning {
		t.Fatalf("domain %s died with its client: %v", name, s)
	}
	if c, err = startAgent(dir, false, dev.rpcAddr, `datacenter = "`+dc+`"`, virtPluginBlock()); err != nil {
		t.Fatal(err)
	}
	expectTasksReattached(t, c, alloc, map[string]string{"proc": "tick\n", "box": "tick\n", "vm": qemutest.Tick})
	if s, u, ok := libvirtDomain(t, name); !ok || s != libvirt.DomainRunning || u != uuid {
		t.Fatalf("after the restart: domain %s state %v uuid %s (was %s)", name, s, u, uuid)
	}
	if p, b := cmdlinePid(marker), jobContainers(t, id); p != procPid || b != box {
		t.Fatalf("after the restart: exec pid %d (was %d), container %q (was %q)", p, procPid, b, box)
	}

	if r := nomadish(t, "job", "stop", id); r.code != 0 {
		t.Fatalf("job stop: %v", r)
	}
	eventually(t, 30*time.Second, "all three tasks ended, the domain undefined", func() (bool, string) {
		_, _, defined := libvirtDomain(t, name)
		p, b := cmdlinePid(marker), jobContainers(t, id)
		return p == 0 && b == "" && !defined, fmt.Sprintf("exec pid %d, containers %q, domain defined %v", p, b, defined)
	})
}

// virtCoresJob is a VM reserving two whole cores, on the datacenter dc.
const virtCoresJob = `job %q {
  datacenters = [%q]
  group "g" {
    task "vm" {
      driver       = "virt"
      kill_timeout = "2s"
      config {
        kernel      = %q
        initrd      = %q
        cmdline     = "console=ttyS0 quiet"
        accelerator = "tcg"
      }
      resources {
        cores  = 2
        memory = 256
      }
    }
  }
}
`

// libvirtXML returns the live XML of the named domain.
func libvirtXML(t *testing.T, name string) string {
	t.Helper()
	l := libvirt.NewWithDialer(dialers.NewLocal(dialers.WithSocket(virt.DefaultSocket)))
	if err := l.ConnectToURI(libvirt.QEMUSystem); err != nil {
		t.Fatalf("libvirtd is required: %v\n%s", err, virttest.DaemonState())
	}
	defer l.Disconnect()
	dom, err := l.DomainLookupByName(name)
	if err != nil {
		t.Fatal(err)
	}
	x, err := l.DomainGetXMLDesc(dom, 0)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// A job with cores = 2 on a client of its own: the scheduler's reserved
// cores are the ones libvirt pins, one vCPU each, the emulator on both and
// the memory bound to their NUMA node, as the live domain XML shows.
func TestVirtReservedCoresPinned(t *testing.T) {
	id := uniqueID("e2e-virt-cores")
	virttest.RequireDaemon(t)
	kernel, err := qemutest.Kernel()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(qemuImageDir, 0o755); err != nil {
		t.Fatal(err)
	}
	initrd := filepath.Join(qemuImageDir, "virt-cores-initrd.gz")
	if err := qemutest.WriteInitramfs(initrd, qemutest.Busybox, qemutest.InitScript(qemuMarker)); err != nil {
		t.Fatal(err)
	}
	dir, dc := filepath.Join(agentsDir(t), "virt-cores"), "dc-virt-cores"
	c, err := startAgent(dir, false, dev.rpcAddr, `datacenter = "`+dc+`"`, virtPluginBlock())
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
	t.Cleanup(func() { nomadish(t, "job", "stop", "-purge", id) })
	if r := nomadish(t, "job", "run", "-detach", writeFile(t, "virt-cores.nomad.hcl", fmt.Sprintf(virtCoresJob, id, dc, kernel, initrd))); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	allocs := waitAllocs(t, id, 1, "running", func(a allocRow) bool { return a.ClientStatus == "running" })
	eventually(t, 90*time.Second, "the guest's marker", func() (bool, string) {
		out := taskStdout(c.addr, allocs[0].ID, "vm")
		return strings.Contains(out, qemuMarker), out
	})
	var alloc struct {
		AllocatedResources struct {
			Tasks map[string]struct{ Cpu struct{ ReservedCores []int } }
		}
	}
	if err := getJSON(dev.addr+"/v1/allocation/"+allocs[0].ID, &alloc); err != nil {
		t.Fatal(err)
	}
	cores := alloc.AllocatedResources.Tasks["vm"].Cpu.ReservedCores
	if len(cores) != 2 {
		t.Fatalf("reserved cores %v, want two", cores)
	}
	live := libvirtXML(t, virt.DomainName(allocs[0].ID, "vm"))
	for i, core := range cores {
		if want := fmt.Sprintf("<vcpupin vcpu='%d' cpuset='%d'/>", i, core); !strings.Contains(live, want) {
			t.Errorf("live domain XML lacks %s:\n%s", want, live)
		}
	}
	for _, want := range []string{"<emulatorpin cpuset=", "<numatune>", "<memory mode='strict' nodeset=", "<memnode cellid='0' mode='strict'"} {
		if !strings.Contains(live, want) {
			t.Errorf("live domain XML lacks %s:\n%s", want, live)
		}
	}
	if r := nomadish(t, "job", "stop", id); r.code != 0 {
		t.Fatalf("job stop: %v", r)
	}
	eventually(t, 30*time.Second, "the domain undefined", func() (bool, string) {
		_, _, defined := libvirtDomain(t, virt.DomainName(allocs[0].ID, "vm"))
		return !defined, "still defined"
	})
}
