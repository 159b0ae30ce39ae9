package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/docker/dockertest"
)

// bridgeServiceJob is the job: one bridge-mode group with an exec
// task serving HTTP on 8080 inside the group's namespace and a docker task
// reading it over localhost, the group's service registered in nomadish's
// catalog with an http check that gates the deployment.
func bridgeServiceJob(id, dc, service string) string {
	return fmt.Sprintf(`job %[1]q {
  type        = "service"
  datacenters = [%[2]q]
  group "web" {
    network {
      mode = "bridge"
      port "http" {
        to = 8080
      }
    }
    update {
      health_check     = "checks"
      min_healthy_time = "1s"
      healthy_deadline = "1m"
    }
    service {
      provider = "nomad"
      name     = %[3]q
      port     = "http"
      tags     = ["e2e"]
      check {
        type     = "http"
        path     = "/"
        interval = "1s"
        timeout  = "1s"
      }
    }
    task "server" {
      driver       = "exec"
      kill_timeout = "1s"
      config {
        command = "/bin/sh"
        args    = ["-c", "mkdir -p local/www; echo served-by-$NOMAD_ALLOC_ID > local/www/index.html; exec /bin/busybox httpd -f -p 8080 -h local/www"]
      }
      resources {
        cpu    = 100
        memory = 64
      }
    }
    task "reader" {
      driver       = "docker"
      kill_timeout = "1s"
      config {
        image   = %[4]q
        command = "/bin/sh"
        args    = ["-c", "while true; do wget -q -O - http://127.0.0.1:8080/ 2>&1 | sed 's/^/got:/'; sleep 1; done"]
      }
      resources {
        cpu    = 100
        memory = 32
      }
    }
  }
}
`, id, dc, service, dockertest.Image)
}

// registration is what the test reads of /v1/service/:name.
type registration struct {
	ID, ServiceName, NodeID, AllocID, Address string
	Port                                      int
	Tags                                      []string
}

func readService(t *testing.T, name string) []registration {
	t.Helper()
	var regs []registration
	if err := getJSON(dev.addr+"/v1/service/"+name, &regs); err != nil {
		t.Fatalf("GET /v1/service/%s: %v", name, err)
	}
	return regs
}

// infraContainers lists the docker infra containers of the allocation.
func infraContainers(t *testing.T, allocID string) string {
	t.Helper()
	out, err := exec.Command("docker", "ps", "-a", "-q", "--filter", "name=nomad_init_"+allocID).Output()
	if err != nil {
		t.Fatalf("docker ps: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// TestBridgeGroupWithServices is the end-to-end test on real CNI
// plugins, a real docker engine and the exec driver: the docker task
// reaches the exec task over localhost in their shared namespace (docker's
// infra container holds it), the host reaches it on the mapped port, the
// http check makes the deployment healthy, /v1/service/<name> lists the
// live address; a SIGKILLed and restarted client keeps the namespace, the
// tasks and the registration; stopping the job removes the infra
// container, the lease and the registration.
func TestBridgeGroupWithServices(t *testing.T) {
	ensureTestImage(t)
	bc := startBridgeClient(t, "bridge-svc")
	jobID := uniqueID("e2e-bridge-svc")
	service := "web-" + jobID
	t.Cleanup(func() { nomadish(t, "job", "stop", "-purge", jobID) })
	if r := nomadish(t, "job", "run", "-detach", writeFile(t, jobID+".nomad.hcl", bridgeServiceJob(jobID, bc.dc, service))); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	row := waitAllocs(t, jobID, 1, "running", func(a allocRow) bool { return a.ClientStatus == "running" })[0]

	// The deployment turns healthy through the check.
	eventually(t, 90*time.Second, "deployment successful", func() (bool, string) {
		var d struct{ Status, StatusDescription string }
		if err := getJSON(dev.addr+"/v1/job/"+jobID+"/deployment", &d); err != nil {
			return false, err.Error()
		}
		return d.Status == "successful", d.Status + ": " + d.StatusDescription
	})
	a := readBridgeAlloc(t, row.ID)
	if a.NetworkStatus == nil || a.hostURL() == "" {
		t.Fatalf("alloc network %+v", a)
	}
	want := "served-by-" + row.ID
	if body := fetch(a.hostURL()); !strings.HasPrefix(body, want) {
		t.Fatalf("host GET %s = %q, want %q", a.hostURL(), body, want)
	}
	// The docker task reads the exec task over localhost.
	eventually(t, 30*time.Second, "docker task reaches the exec task on localhost", func() (bool, string) {
		r := nomadish(t, "alloc", "logs", row.ID, "reader")
		return strings.Contains(r.out, "got:"+want), r.String()
	})
	// The service lists the live address: the node's address and the host port.
	var hostPort int
	for _, p := range a.Resources.Shared.Ports {
		if p.Label == "http" {
			hostPort = p.Value
		}
	}
	var reg registration
	eventually(t, 30*time.Second, "service registered", func() (bool, string) {
		regs := readService(t, service)
		if len(regs) != 1 {
			return false, fmt.Sprintf("%+v", regs)
		}
		reg = regs[0]
		return reg.AllocID == row.ID && reg.Port == hostPort, fmt.Sprintf("%+v", regs)
	})
	if body := fetch("http://" + net.JoinHostPort(reg.Address, strconv.Itoa(reg.Port)) + "/"); !strings.HasPrefix(body, want) {
		t.Fatalf("GET the registered address %s:%d = %q", reg.Address, reg.Port, body)
	}
	r := nomadish(t, "alloc", "checks", "-json", row.ID)
	var checks map[string]struct{ Status, Service string }
	if err := json.Unmarshal([]byte(r.out), &checks); err != nil || len(checks) != 1 {
		t.Fatalf("alloc checks: %v %v", r, err)
	}
	for _, c := range checks {
		if c.Status != "passing" || c.Service != service {
			t.Fatalf("check %+v", c)
		}
	}
	infra := infraContainers(t, row.ID)
	if infra == "" {
		t.Fatal("no infra container holds the group's namespace")
	}
	if n := leaseFiles(bc.bridge); n != 1 {
		t.Fatalf("%d leases, want 1", n)
	}

	// SIGKILL the client and start it again: same address, same
	// registration, the tasks not restarted.
	if err := bc.c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-bc.c.done
	c, err := startAgent(bc.dir, false, dev.rpcAddr, bc.extra...)
	if err != nil {
		t.Fatal(err)
	}
	bc.c = c
	eventually(t, 30*time.Second, "restarted client keeps the alloc", func() (bool, string) {
		b := readBridgeAlloc(t, row.ID)
		restarts := uint64(0)
		for _, ts := range b.TaskStates {
			restarts += ts.Restarts
		}
		return !c.exited() && b.ClientStatus == "running" && restarts == 0 && b.NetworkStatus != nil &&
			b.NetworkStatus.Address == a.NetworkStatus.Address, fmt.Sprintf("%+v", b)
	})
	if got := infraContainers(t, row.ID); got != infra {
		t.Fatalf("infra container %q replaced by %q", infra, got)
	}
	if body := fetch(a.hostURL()); !strings.HasPrefix(body, want) {
		t.Fatalf("after the restart GET %s = %q", a.hostURL(), body)
	}
	if regs := readService(t, service); len(regs) != 1 || regs[0].ID != reg.ID {
		t.Fatalf("after the restart the service lists %+v, want %s", regs, reg.ID)
	}
	if n := leaseFiles(bc.bridge); n != 1 {
		t.Fatalf("%d leases after the restart, want 1", n)
	}

	if r := nomadish(t, "job", "stop", jobID); r.code != 0 {
		t.Fatalf("job stop: %v", r)
	}
	eventually(t, 30*time.Second, "namespace, lease and registration released", func() (bool, string) {
		regs := readService(t, service)
		left := infraContainers(t, row.ID)
		return len(regs) == 0 && left == "" && leaseFiles(bc.bridge) == 0,
			fmt.Sprintf("registrations %+v, infra %q, %d leases", regs, left, leaseFiles(bc.bridge))
	})
}
