package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// inplaceJob is a raw_exec service job of one alloc asking memory MB.
func inplaceJob(id string, memory int) string {
	return fmt.Sprintf(`job %q {
  type = "service"
  group "g" {
    update {
      max_parallel     = 1
      min_healthy_time = "1s"
    }
    task "t" {
      driver = "raw_exec"
      kill_timeout = "1s"
      config {
        command = "/bin/sh"
        args    = ["-c", "while true; do sleep 0.1; done"]
      }
      resources {
        cpu    = 100
        memory = %d
      }
    }
  }
}
`, id, memory)
}

type inplaceAlloc struct {
	ID, DesiredStatus, ClientStatus string
	Job                             struct{ Version uint64 }
	AllocatedResources              struct {
		Tasks map[string]struct{ Memory struct{ MemoryMB int64 } }
	}
	TaskStates map[string]struct {
		Restarts int
		Events   []struct{ Type, DisplayMessage string }
	}
}

// A memory change of a running service job updates its alloc in place:
// the same alloc keeps running, without a restart, now holding 96 MB, and
// its task records the update.
func TestInPlaceResourceUpdate(t *testing.T) {
	id := uniqueID("e2e-inplace")
	t.Cleanup(func() { nomadish(t, "job", "stop", "-purge", id) })
	if r := nomadish(t, "job", "run", writeFile(t, "inplace.nomad.hcl", inplaceJob(id, 64))); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	first := waitAllocs(t, id, 1, "running", func(a allocRow) bool { return a.ClientStatus == "running" })[0]

	path := writeFile(t, "inplace2.nomad.hcl", inplaceJob(id, 96))
	if r := nomadish(t, "job", "plan", path); r.code != 1 || !strings.Contains(r.out, "1 in-place update") {
		t.Fatalf("job plan: %v", r)
	}
	if r := nomadish(t, "job", "run", path); r.code != 0 {
		t.Fatalf("second job run: %v", r)
	}
	var a inplaceAlloc
	eventually(t, 30*time.Second, "the alloc to run version 1 with 96 MB", func() (bool, string) {
		allocs := jobAllocs(t, id)
		if len(allocs) != 1 || allocs[0].ID != first.ID {
			return false, fmt.Sprintf("allocs %+v, want only %s", allocs, first.ID)
		}
		a = inplaceAlloc{}
		if err := getJSON(dev.addr+"/v1/allocation/"+first.ID, &a); err != nil {
			return false, err.Error()
		}
		ts := a.TaskStates["t"]
		updated := len(ts.Events) > 0 && ts.Events[len(ts.Events)-1].Type == "Resources Updated"
		return a.Job.Version == 1 && a.ClientStatus == "running" && updated &&
			a.AllocatedResources.Tasks["t"].Memory.MemoryMB == 96, fmt.Sprintf("%+v", a)
	})
	if ts := a.TaskStates["t"]; ts.Restarts != 0 || ts.Events[len(ts.Events)-1].DisplayMessage != "Task resources updated" {
		t.Fatalf("task state %+v", ts)
	}
	if r := nomadish(t, "job", "stop", "-purge", id); r.code != 0 {
		t.Fatalf("job stop -purge: %v", r)
	}
}
