package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bridgeJob is a bridge-mode service group of count raw_exec tasks, each
// serving its allocation ID over HTTP on port 8080 inside its namespace
// (busybox httpd, started in the namespace with `ip netns exec`, so the
// test does not depend on the driver joining it), the host port mapped by
// CNI's portmap.
func bridgeJob(id, dc string, count int) string {
	return fmt.Sprintf(`job %[1]q {
  type        = "service"
  datacenters = [%[2]q]
  group "web" {
    count = %[3]d
    network {
      mode = "bridge"
      port "http" {
        to = 8080
      }
    }
    task "t" {
      driver       = "raw_exec"
      kill_timeout = "1s"
      config {
        command = "/bin/sh"
        args    = ["-c", "echo $$ > $NOMAD_TASK_DIR/pid; echo $NOMAD_ALLOC_ID $NOMAD_PORT_http > $NOMAD_TASK_DIR/index.html; exec ip netns exec nomadish-$NOMAD_ALLOC_ID busybox httpd -f -p $NOMAD_PORT_http -h $NOMAD_TASK_DIR"]
      }
      resources {
        cpu    = 100
        memory = 32
      }
    }
  }
}
`, id, dc, count)
}

// bridgeAlloc is what the test reads of an allocation.
type bridgeAlloc struct {
	ID            string
	ClientStatus  string
	NetworkStatus *struct{ InterfaceName, Address string }
	Resources     struct {
		Shared struct {
			Ports []struct {
				Label, HostIP string
				Value, To     int
			}
		}
	} `json:"AllocatedResources"`
	TaskStates map[string]struct {
		Restarts uint64
		Events   []struct{ Type string }
	}
}

func readBridgeAlloc(t *testing.T, id string) bridgeAlloc {
	t.Helper()
	var a bridgeAlloc
	if err := getJSON(dev.addr+"/v1/allocation/"+id, &a); err != nil {
		t.Fatalf("reading alloc %s: %v", id, err)
	}
	return a
}

// hostURL is the allocation's mapped port on the host.
func (a bridgeAlloc) hostURL() string {
	for _, p := range a.Resources.Shared.Ports {
		if p.Label == "http" {
			return "http://" + net.JoinHostPort(p.HostIP, strconv.Itoa(p.Value)) + "/"
		}
	}
	return ""
}

func netnsList(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatalf("ip netns list: %v", err)
	}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	return names
}

func hasNetns(t *testing.T, name string) bool {
	for _, n := range netnsList(t) {
		if n == name {
			return true
		}
	}
	return false
}

// leaseFiles counts host-local's leases (files named by address) of network.
func leaseFiles(network string) int {
	entries, _ := os.ReadDir(filepath.Join("/var/lib/cni/networks", network))
	n := 0
	for _, e := range entries {
		if net.ParseIP(e.Name()) != nil {
			n++
		}
	}
	return n
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatalf("stat %s: %v", path, err)
	}
	return st.Ino
}

// fetch GETs url and returns its body ("" on any failure).
func fetch(url string) string {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return ""
	}
	return string(b)
}

// bridgeClient is a client agent of its own with its own bridge and
// subnet, joined to the dev server.
type bridgeClient struct {
	c                       *agentProc
	dir, bridge, subnet, dc string
	extra                   []string
}

// startBridgeClient starts it; the cleanup stops it and removes its bridge
// and lease directory.
func startBridgeClient(t *testing.T, name string) *bridgeClient {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("bridge networking needs root")
	}
	if _, err := os.Stat("/usr/lib/cni/bridge"); err != nil {
		t.Fatal("CNI plugins missing: install containernetworking-plugins (scripts/setup.sh test)")
	}
	b := make([]byte, 3)
	rand.Read(b)
	bc := &bridgeClient{bridge: "nme" + hex.EncodeToString(b), dc: "dc-" + name,
		subnet: fmt.Sprintf("10.%d.%d.0/24", 140+b[1]%20, b[0]), dir: filepath.Join(agentsDir(t), name)}
	bc.extra = []string{fmt.Sprintf("datacenter = %q", bc.dc),
		fmt.Sprintf("client {\n  bridge_network_name = %q\n  bridge_network_subnet = %q\n}", bc.bridge, bc.subnet)}
	c, err := startAgent(bc.dir, false, dev.rpcAddr, bc.extra...)
	if err != nil {
		t.Fatal(err)
	}
	bc.c = c
	t.Cleanup(func() {
		retireNodesIn(t, bc.dc)
		bc.c.stop()
		_ = exec.Command("ip", "link", "del", bc.bridge).Run()
		_ = os.RemoveAll(filepath.Join("/var/lib/cni/networks", bc.bridge))
		if t.Failed() {
			t.Logf("client log (tail):\n%s", bc.c.logTail())
		}
	})
	if err := c.waitReady(2, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	return bc
}

// TestBridgeNetworking runs a bridge-mode group of two allocations on a
// client of its own (its own bridge and subnet): each gets its own named
// namespace and address, is reached from the host on its mapped port, and
// runs in its namespace; a SIGKILLed and restarted client keeps the
// namespaces (same inode, same address) and the tasks; stopping the job
// removes the namespaces and the host-local leases.
func TestBridgeNetworking(t *testing.T) {
	bc := startBridgeClient(t, "bridge")
	c, dir, bridge, subnet, dcName, extra := bc.c, bc.dir, bc.bridge, bc.subnet, bc.dc, bc.extra
	jobID := uniqueID("e2e-bridge")
	t.Cleanup(func() { nomadish(t, "job", "stop", "-purge", jobID) })
	if r := nomadish(t, "job", "run", "-detach", writeFile(t, jobID+".nomad.hcl", bridgeJob(jobID, dcName, 2))); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	rows := waitAllocs(t, jobID, 2, "running", func(a allocRow) bool { return a.ClientStatus == "running" })

	type seen struct {
		url, addr string
		ino       uint64
		pid       int
	}
	first := map[string]seen{}
	for _, row := range rows {
		var a bridgeAlloc
		eventually(t, 30*time.Second, "alloc "+row.ID+" serves on its mapped port", func() (bool, string) {
			a = readBridgeAlloc(t, row.ID)
			if a.NetworkStatus == nil || a.hostURL() == "" {
				return false, fmt.Sprintf("%+v", a)
			}
			body := fetch(a.hostURL())
			return strings.HasPrefix(body, row.ID+" 8080"), fmt.Sprintf("GET %s: %q", a.hostURL(), body)
		})
		ns := "/var/run/netns/nomadish-" + row.ID
		if !hasNetns(t, "nomadish-"+row.ID) {
			t.Fatalf("ip netns does not list nomadish-%s", row.ID)
		}
		if a.NetworkStatus.InterfaceName != "eth0" || !strings.HasPrefix(a.NetworkStatus.Address, strings.TrimSuffix(subnet, "0/24")) {
			t.Fatalf("alloc %s network status %+v (subnet %s)", row.ID, a.NetworkStatus, subnet)
		}
		pid := readPid(t, filepath.Join(dir, "data", "alloc", row.ID, "t", "local", "pid"))
		// The task (busybox httpd, exec'd in place) runs in the namespace.
		if got, want := inode(t, fmt.Sprintf("/proc/%d/ns/net", pid)), inode(t, ns); got != want {
			t.Fatalf("task pid %d in namespace %d, want %d", pid, got, want)
		}
		first[row.ID] = seen{url: a.hostURL(), addr: a.NetworkStatus.Address, ino: inode(t, ns), pid: pid}
	}
	t.Logf("allocations (url, address, namespace inode, task pid): %+v", first)
	ids := []string{rows[0].ID, rows[1].ID}
	if first[ids[0]].addr == first[ids[1]].addr || first[ids[0]].ino == first[ids[1]].ino {
		t.Fatalf("two allocations share a namespace or address: %+v", first)
	}
	if n := leaseFiles(bridge); n != 2 {
		t.Fatalf("%d host-local leases, want 2", n)
	}

	// SIGKILL the client and start it again: namespaces, addresses and
	// tasks stay as they were.
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-c.done
	c, err := startAgent(dir, false, dev.rpcAddr, extra...)
	if err != nil {
		t.Fatal(err)
	}
	bc.c = c
	for _, id := range ids {
		eventually(t, 30*time.Second, "restarted client reports "+id+" running, not restarted", func() (bool, string) {
			a := readBridgeAlloc(t, id)
			started := 0
			for _, ev := range a.TaskStates["t"].Events {
				if ev.Type == "Started" {
					started++
				}
			}
			return !c.exited() && a.ClientStatus == "running" && started == 1 && a.TaskStates["t"].Restarts == 0 &&
				a.NetworkStatus != nil && a.NetworkStatus.Address == first[id].addr, fmt.Sprintf("%+v", a)
		})
		if got := inode(t, "/var/run/netns/nomadish-"+id); got != first[id].ino {
			t.Fatalf("namespace of %s replaced: inode %d, was %d", id, got, first[id].ino)
		}
		if body := fetch(first[id].url); !strings.HasPrefix(body, id) {
			t.Fatalf("after the restart GET %s = %q", first[id].url, body)
		}
		if syscall.Kill(first[id].pid, 0) != nil {
			t.Fatalf("task pid %d of %s is gone", first[id].pid, id)
		}
	}
	if n := leaseFiles(bridge); n != 2 {
		t.Fatalf("%d host-local leases after the restart, want 2 (no second ADD)", n)
	}

	if r := nomadish(t, "job", "stop", jobID); r.code != 0 {
		t.Fatalf("job stop: %v", r)
	}
	eventually(t, 30*time.Second, "namespaces and leases released", func() (bool, string) {
		left := 0
		for _, id := range ids {
			if hasNetns(t, "nomadish-"+id) {
				left++
			}
		}
		return left == 0 && leaseFiles(bridge) == 0, fmt.Sprintf("%d namespaces, %d leases", left, leaseFiles(bridge))
	})
}
