package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// checkedJob is a service job of one raw_exec task serving
// $NOMAD_TASK_DIR/www with busybox httpd on the group's dynamic port
// "http"; its service "web" has an http check of path. prep runs before
// the server starts (in the background when it ends with &).
func checkedJob(id, path, prep string, restart *api.CheckRestart) *api.Job {
	job := api.NewServiceJob(id, id, "global", 50)
	job.Datacenters = []string{"*"}
	tg := api.NewTaskGroup("g", 1)
	tg.Networks = []*api.NetworkResource{{DynamicPorts: []api.Port{{Label: "http"}}}}
	tg.Update = &api.UpdateStrategy{MaxParallel: pointer(1), MinHealthyTime: pointer(time.Second),
		HealthyDeadline: pointer(60 * time.Second), HealthCheck: pointer("checks")}
	tg.RestartPolicy = &api.RestartPolicy{Attempts: pointer(5), Interval: pointer(time.Hour),
		Delay: pointer(100 * time.Millisecond), Mode: pointer("fail")}
	task := api.NewTask("t", "raw_exec")
	task.KillTimeout = pointer(time.Second)
	task.Config = map[string]any{"command": "/bin/sh", "args": []string{"-c",
		`mkdir -p "$NOMAD_TASK_DIR/www"; ` + prep + ` exec /bin/busybox httpd -f -p "$NOMAD_PORT_http" -h "$NOMAD_TASK_DIR/www"`}}
	task.Resources = &api.Resources{CPU: pointer(100), MemoryMB: pointer(32)}
	task.Services = []*api.Service{{Name: "web-" + id, PortLabel: "http", Provider: "nomad", Checks: []api.ServiceCheck{{
		Name: "alive", Type: "http", Path: path, Interval: time.Second, Timeout: time.Second,
		CheckRestart: restart}}}}
	tg.Tasks = []*api.Task{task}
	job.TaskGroups = []*api.TaskGroup{tg}
	return job
}

// stopCheckedJob stops the job, waits for its task to be dead (the agent
// outlives the test, its tasks must not), then purges it.
func stopCheckedJob(t *testing.T, c *api.Client, id string) {
	t.Helper()
	if _, _, err := c.Jobs().Deregister(id, false, nil); err != nil {
		t.Fatal(err)
	}
	waitAllocs(t, id, 1, "stopped", func(a allocRow) bool { return a.ClientStatus == "complete" })
	if _, _, err := c.Jobs().Deregister(id, true, nil); err != nil {
		t.Fatal(err)
	}
}

func pointer[T any](v T) *T { return &v }

func apiClient(t *testing.T) *api.Client {
	t.Helper()
	c, err := api.NewClient(&api.Config{Address: dev.addr})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// runningAlloc waits for the job's one allocation to run and returns it.
func runningAlloc(t *testing.T, c *api.Client, jobID string) *api.AllocationListStub {
	t.Helper()
	var alloc *api.AllocationListStub
	eventually(t, 30*time.Second, "the allocation to run", func() (bool, string) {
		allocs, _, err := c.Jobs().Allocations(jobID, false, nil)
		if err != nil || len(allocs) == 0 {
			return false, fmt.Sprintf("allocs %v: %v", allocs, err)
		}
		alloc = allocs[0]
		return alloc.ClientStatus == "running", alloc.ClientStatus
	})
	return alloc
}

// TestChecksGateDeploymentHealth: the check fails (404) until the task has
// written its page 3 s after it started; the allocation is not reported
// healthy before its check passes, then the deployment succeeds. `alloc
// checks` and the official client show the passing check.
func TestChecksGateDeploymentHealth(t *testing.T) {
	c := apiClient(t)
	id := uniqueID("e2e-checks")
	job := checkedJob(id, "/ok", `(sleep 3; echo fine > "$NOMAD_TASK_DIR/www/ok") &`, nil)
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	defer stopCheckedJob(t, c, id)
	alloc := runningAlloc(t, c, id)

	sawFailing := false
	eventually(t, 60*time.Second, "the allocation to become healthy", func() (bool, string) {
		checks, err := c.Allocations().Checks(alloc.ID, nil)
		if err != nil {
			return false, err.Error()
		}
		a, _, err := c.Allocations().Info(alloc.ID, nil)
		if err != nil {
			return false, err.Error()
		}
		passing := false
		for _, ck := range checks {
			passing = ck.Check == "alive" && ck.Status == "passing"
			if ck.Status == "critical" {
				sawFailing = true
			}
		}
		healthy := a.DeploymentStatus != nil && a.DeploymentStatus.Healthy != nil && *a.DeploymentStatus.Healthy
		if healthy && !passing {
			t.Fatalf("the allocation was reported healthy while its check is not passing: %+v", checks)
		}
		return healthy, fmt.Sprintf("checks %+v, deployment status %+v", checks, a.DeploymentStatus)
	})
	if !sawFailing {
		t.Log("the check was never seen failing (the page appeared before the first look)")
	}
	eventually(t, 30*time.Second, "the deployment to succeed", func() (bool, string) {
		d, _, err := c.Jobs().LatestDeployment(id, nil)
		if err != nil || d == nil {
			return false, fmt.Sprint(err)
		}
		return d.Status == "successful", d.Status + " " + d.StatusDescription
	})
	r := nomadish(t, "alloc", "checks", alloc.ID)
	if r.code != 0 || !strings.Contains(r.out, "alive") || !strings.Contains(r.out, "passing") || !strings.Contains(r.out, "200") {
		t.Fatalf("alloc checks: %v", r)
	}
}

// TestCheckRestartRestartsTask: a check that always fails (404) with
// check_restart restarts the task; its events name the check, and `alloc
// checks` shows it failing.
func TestCheckRestartRestartsTask(t *testing.T) {
	c := apiClient(t)
	id := uniqueID("e2e-checkrestart")
	job := checkedJob(id, "/missing", "", &api.CheckRestart{Limit: 2, Grace: pointer(500 * time.Millisecond)})
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	defer stopCheckedJob(t, c, id)
	alloc := runningAlloc(t, c, id)
	eventually(t, 60*time.Second, "a check restart", func() (bool, string) {
		a, _, err := c.Allocations().Info(alloc.ID, nil)
		if err != nil || a.TaskStates["t"] == nil {
			return false, fmt.Sprint(err)
		}
		var seen []string
		for _, e := range a.TaskStates["t"].Events {
			if e.Type == "Restart Signaled" && e.RestartReason == `healthcheck: check "alive" unhealthy` {
				return a.TaskStates["t"].Restarts >= 1, "restarts counted"
			}
			seen = append(seen, e.Type+": "+e.RestartReason)
		}
		return false, strings.Join(seen, "; ")
	})
	r := nomadish(t, "alloc", "status", alloc.ID)
	if !strings.Contains(r.out, `healthcheck: check "alive" unhealthy`) {
		t.Errorf("alloc status does not show the restart's reason:\n%s", r.out)
	}
	eventually(t, 30*time.Second, "alloc checks to show the failing check", func() (bool, string) {
		r := nomadish(t, "alloc", "checks", alloc.ID)
		return r.code == 0 && strings.Contains(r.out, "critical") && strings.Contains(r.out, "404"), r.String()
	})
}
