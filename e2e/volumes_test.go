package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/drivers/docker/dockertest"
)

// volumeJob is a batch job in datacenter dc whose group asks for host
// volume source (read-only) and whose exec and docker tasks mount it at
// /certs, read its file and try to write it.
func volumeJob(id, dc, source string) string {
	script := `cat %scerts/hello; if echo x > %scerts/hello 2>/dev/null; then echo WROTE; else echo write-refused; fi`
	return fmt.Sprintf(`job %q {
  type        = "batch"
  datacenters = [%q]
  group "g" {
    volume "certs" {
      type      = "host"
      source    = %q
      read_only = true
    }
    task "exec" {
      driver = "exec"
      config {
        command = "/bin/sh"
        args    = ["-c", %q]
      }
      volume_mount {
        volume      = "certs"
        destination = "/certs"
      }
      resources {
        cpu    = 100
        memory = 64
      }
    }
    task "docker" {
      driver = "docker"
      config {
        image   = %q
        command = "/bin/sh"
        args    = ["-c", %q]
      }
      volume_mount {
        volume      = "certs"
        destination = "/certs"
        read_only   = true
      }
      resources {
        cpu    = 100
        memory = 32
      }
    }
  }
}
`, id, dc, source, fmt.Sprintf(script, "", ""), dockertest.Image, fmt.Sprintf(script, "/", "/"))
}

// A client agent with a read-only host_volume in its config: the node
// reports it, an exec task (bind mount in its mount namespace) and a docker
// task (bind) read its file and cannot write it, and a job asking for a
// volume no node has is not placed, with Nomad's reason.
func TestHostVolumes(t *testing.T) {
	ensureTestImage(t)
	host, err := os.MkdirTemp("", "nomadish-e2e-vol-") // not under a 0700 temp dir: the exec task runs as nobody
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(host) })
	if err := os.Chmod(host, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(host, "hello"), []byte("hello-volume\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dcName := uniqueID("dc-vol")
	startClient(t, "vol", dcName, hostVolumeConfig("shared", host))
	var nodes []struct{ ID, Datacenter string }
	if err := getJSON(dev.addr+"/v1/nodes", &nodes); err != nil {
		t.Fatal(err)
	}
	var node struct {
		HostVolumes map[string]struct {
			Name, Path string
			ReadOnly   bool
		}
	}
	for _, n := range nodes {
		if n.Datacenter == dcName {
			if err := getJSON(dev.addr+"/v1/node/"+n.ID, &node); err != nil {
				t.Fatal(err)
			}
		}
	}
	if hv := node.HostVolumes["shared"]; hv.Path != host || !hv.ReadOnly || hv.Name != "shared" {
		t.Fatalf("node host volumes = %+v", node.HostVolumes)
	}

	id := uniqueID("e2e-vol")
	t.Cleanup(func() {
		nomadish(t, "job", "stop", "-purge", id)
		removeJobContainers(t, id)
	})
	r := nomadish(t, "job", "run", writeFile(t, "vol.nomad.hcl", volumeJob(id, dcName, "shared")))
	if r.code != 0 || !createdAlloc.MatchString(r.out) {
		t.Fatalf("job run: %v", r)
	}
	short := createdAlloc.FindStringSubmatch(r.out)[1]
	waitAllocs(t, id, 1, "complete", func(a allocRow) bool { return a.ClientStatus == "complete" })
	for _, task := range []string{"exec", "docker"} {
		if r := nomadish(t, "alloc", "logs", short, task); r.code != 0 || r.out != "hello-volume\nwrite-refused\n" {
			t.Errorf("alloc logs %s: %v", task, r)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(host, "hello")); string(b) != "hello-volume\n" {
		t.Errorf("host file now %q", b)
	}

	missing := uniqueID("e2e-vol-missing")
	t.Cleanup(func() { nomadish(t, "job", "stop", "-purge", missing) })
	r = nomadish(t, "job", "run", writeFile(t, "missing.nomad.hcl", volumeJob(missing, dcName, "nope")))
	const why = `Constraint "missing compatible host volumes": 1 nodes excluded by filter`
	if r.code != 2 || !strings.Contains(r.out, why) {
		t.Fatalf("job run of a job asking a missing volume: %v", r)
	}
	if n := len(jobAllocs(t, missing)); n != 0 {
		t.Fatalf("%d allocations placed", n)
	}
	if r := nomadish(t, "job", "status", missing); r.code != 0 || !strings.Contains(r.out, why) {
		t.Fatalf("job status: %v", r)
	}
}
