package e2e

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// deployJob is a service job of count 2 with a rolling update block; word
// is passed to the task so that changing it is a destructive update.
func deployJob(id, word string) string {
	return fmt.Sprintf(`job %q {
  type = "service"
  group "g" {
    count = 2
    update {
      max_parallel     = 1
      min_healthy_time = "1s"
      healthy_deadline = "30s"
    }
    task "t" {
      driver = "raw_exec"
      kill_timeout = "1s"
      config {
        command = "/bin/sh"
        args    = ["-c", "echo %s; while true; do sleep 0.1; done"]
      }
      resources {
        cpu    = 100
        memory = 32
      }
    }
  }
}
`, id, word)
}

type deploymentRow struct {
	ID, Status, StatusDescription string
	JobVersion                    uint64
	TaskGroups                    map[string]struct{ DesiredTotal, PlacedAllocs, HealthyAllocs, UnhealthyAllocs int }
}

type deployAllocRow struct {
	ID, DesiredStatus, ClientStatus string
	JobVersion                      uint64
	CreateTime                      int64
}

// TestDeploymentRollingUpdate runs a service job, changes its task config
// and checks that the allocs are replaced one at a time (max_parallel 1)
// and the deployment ends successful; `job run` follows it.
func TestDeploymentRollingUpdate(t *testing.T) {
	id := uniqueID("e2e-deploy")
	path := writeFile(t, "deploy.nomad.hcl", deployJob(id, "one"))
	r := nomadish(t, "job", "run", path)
	if r.code != 0 || !strings.Contains(r.out, `==> Monitoring deployment "`) || !strings.Contains(r.out, "successful") {
		t.Fatalf("first job run: %v", r)
	}

	// Watch the rollout from the API while `job run` follows it.
	done := make(chan result, 1)
	go func() { done <- nomadish(t, "job", "run", writeFile(t, "deploy2.nomad.hcl", deployJob(id, "two"))) }()
	maxNewUnhealthy := 0
	var final deploymentRow
	eventually(t, 60*time.Second, "the second deployment to succeed", func() (bool, string) {
		var d deploymentRow
		if err := getJSON(dev.addr+"/v1/job/"+id+"/deployment", &d); err != nil || d.JobVersion != 1 {
			return false, fmt.Sprintf("deployment %+v: %v", d, err)
		}
		var allocs []deployAllocRow
		if err := getJSON(dev.addr+"/v1/job/"+id+"/allocations", &allocs); err != nil {
			return false, err.Error()
		}
		newLive, oldLive := 0, 0
		for _, a := range allocs {
			if a.DesiredStatus != "run" {
				continue
			}
			if a.JobVersion == 1 {
				newLive++
			} else {
				oldLive++
			}
		}
		// With max_parallel 1, at most one old alloc is down at a time:
		// old + new live allocs never fall below count-1.
		if newLive+oldLive < 1 {
			return false, "every alloc stopped at once"
		}
		maxNewUnhealthy = max(maxNewUnhealthy, d.TaskGroups["g"].PlacedAllocs-d.TaskGroups["g"].HealthyAllocs)
		final = d
		return d.Status == "successful", fmt.Sprintf("%+v, %d new and %d old live", d, newLive, oldLive)
	})
	if maxNewUnhealthy > 1 {
		t.Errorf("%d new allocs were unhealthy at once, want at most 1 (max_parallel)", maxNewUnhealthy)
	}
	if g := final.TaskGroups["g"]; g.DesiredTotal != 2 || g.HealthyAllocs != 2 || g.UnhealthyAllocs != 0 {
		t.Errorf("final deployment state %+v", g)
	}
	// One at a time: the second new alloc was placed only after the first
	// had been healthy for min_healthy_time.
	var allocs []deployAllocRow
	if err := getJSON(dev.addr+"/v1/job/"+id+"/allocations", &allocs); err != nil {
		t.Fatal(err)
	}
	var created []int64
	for _, a := range allocs {
		if a.JobVersion == 1 {
			created = append(created, a.CreateTime)
		}
	}
	sort.Slice(created, func(i, j int) bool { return created[i] < created[j] })
	if len(created) != 2 || time.Duration(created[1]-created[0]) < time.Second {
		t.Errorf("new allocs created at %v: want 2, at least min_healthy_time apart", created)
	}
	r = <-done
	if r.code != 0 || !regexp.MustCompile(`Deployment "[0-9a-f]{8}" in progress`).MatchString(r.out) ||
		!strings.Contains(r.out, "Task Group  Desired  Placed  Healthy  Unhealthy") ||
		!regexp.MustCompile(`==> Deployment "[0-9a-f]{8}" successful`).MatchString(r.out) {
		t.Fatalf("second job run: %v", r)
	}
	if r := nomadish(t, "deployment", "list"); r.code != 0 || strings.Count(r.out, id) != 2 {
		t.Fatalf("deployment list: %v", r)
	}
	if r := nomadish(t, "deployment", "status", final.ID[:8]); r.code != 0 || !strings.Contains(r.out, "successful") {
		t.Fatalf("deployment status: %v", r)
	}
	if r := nomadish(t, "job", "stop", id); r.code != 0 {
		t.Fatalf("job stop: %v", r)
	}
}
