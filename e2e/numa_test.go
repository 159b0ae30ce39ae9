package e2e

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/drivers/docker/dockertest"
)

// coresJob is one group on the dev node's datacenter with an exec task and
// a docker task, each reserving one whole core and printing the cores it
// may run on and NOMAD_CPU_CORES.
const coresJob = `job %q {
  datacenters = ["dc1"]
  group "g" {
    task "proc" {
      driver       = "exec"
      kill_timeout = "1s"
      config {
        command = "/bin/sh"
        args    = ["-c", "grep Cpus_allowed_list /proc/self/status; echo cores=$NOMAD_CPU_CORES; while true; do sleep 1; done"]
      }
      resources {
        cores  = 1
        memory = 32
        numa { affinity = "require" }
      }
    }
    task "box" {
      driver       = "docker"
      kill_timeout = "1s"
      config {
        image   = %q
        command = "/bin/sh"
        args    = ["-c", "grep Cpus_allowed_list /proc/self/status; echo cores=$NOMAD_CPU_CORES; trap 'exit 0' TERM; while true; do sleep 1; done"]
      }
      resources {
        cores  = 1
        memory = 32
      }
    }
  }
}
`

// TestReservedCoresArePinned runs two tasks reserving one core each on the
// dev node (this machine has two): the scheduler gives them different
// cores (AllocatedResources ...Cpu.ReservedCores), the exec task's cpuset
// cgroup and the docker task's CpusetCpus pin each to its core
// (Cpus_allowed_list inside the task), NOMAD_CPU_CORES names it, and a
// second such job cannot be placed: the cores are exhausted.
func TestReservedCoresArePinned(t *testing.T) {
	id, id2 := uniqueID("e2e-cores"), uniqueID("e2e-cores-2")
	ensureTestImage(t)
	node := firstNode(t)
	eventually(t, 30*time.Second, "the dev node free of other allocations", func() (bool, string) {
		var allocs []struct{ JobID, ClientStatus string }
		if err := getJSON(dev.addr+"/v1/node/"+node+"/allocations", &allocs); err != nil {
			return false, err.Error()
		}
		var live []string
		for _, a := range allocs {
			if a.ClientStatus == "running" || a.ClientStatus == "pending" {
				live = append(live, a.JobID)
			}
		}
		return len(live) == 0, strings.Join(live, ",")
	})
	path := writeFile(t, "cores.nomad.hcl", fmt.Sprintf(coresJob, id, dockertest.Image))
	t.Cleanup(func() {
		nomadish(t, "job", "stop", "-purge", id)
		nomadish(t, "job", "stop", "-purge", id2)
		removeJobContainers(t, id)
	})
	if r := nomadish(t, "job", "run", "-detach", path); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	allocs := waitAllocs(t, id, 1, "running", func(a allocRow) bool { return a.ClientStatus == "running" })
	var alloc struct {
		AllocatedResources struct {
			Tasks map[string]struct{ Cpu struct{ ReservedCores []int } }
		}
	}
	if err := getJSON(dev.addr+"/v1/allocation/"+allocs[0].ID, &alloc); err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, task := range []string{"proc", "box"} {
		cores := alloc.AllocatedResources.Tasks[task].Cpu.ReservedCores
		if len(cores) != 1 {
			t.Fatalf("task %s reserved cores %v, want one", task, cores)
		}
		got = append(got, cores[0])
		want := fmt.Sprintf("Cpus_allowed_list:\t%d\ncores=%d\n", cores[0], cores[0])
		eventually(t, 30*time.Second, task+" pinned to its core", func() (bool, string) {
			out := taskStdout(dev.addr, allocs[0].ID, task)
			return strings.Contains(out, want), out
		})
	}
	sort.Ints(got)
	if got[0] == got[1] {
		t.Fatalf("both tasks hold core %d", got[0])
	}

	second := fmt.Sprintf(coresJob, id2, dockertest.Image)
	r := nomadish(t, "job", "run", writeFile(t, "cores2.nomad.hcl", second))
	if r.code != 2 || !strings.Contains(r.out, `"cores" exhausted`) {
		t.Fatalf("second job on a node without free cores: %v (want exit 2, cores exhausted)", r)
	}
}
