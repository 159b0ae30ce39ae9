package agent

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

func serviceJob(id, arg string, update *api.UpdateStrategy) *api.Job {
	job := api.NewServiceJob(id, id, "global", 50)
	job.Datacenters = []string{"dc1"}
	task := api.NewTask("sleep", "raw_exec").SetConfig("command", "/bin/sleep").SetConfig("args", []string{arg})
	tg := api.NewTaskGroup("g", 1).AddTask(task)
	tg.Update = update
	job.AddTaskGroup(tg)
	return job
}

// waitDeployment waits for the job's latest deployment of version to reach
// status, through the official client's Jobs().LatestDeployment.
func waitDeployment(t *testing.T, c *api.Client, jobID string, version uint64, status string) *api.Deployment {
	t.Helper()
	var d *api.Deployment
	waitFor(t, 30*time.Second, fmt.Sprintf("deployment of version %d %s", version, status), func() error {
		var err error
		d, _, err = c.Jobs().LatestDeployment(jobID, nil)
		if err != nil || d == nil {
			return fmt.Errorf("latest deployment %+v: %v", d, err)
		}
		if d.JobVersion != version || d.Status != status {
			return fmt.Errorf("deployment of version %d is %s (%s)", d.JobVersion, d.Status, d.StatusDescription)
		}
		return nil
	})
	return d
}

// TestOfficialClientDeployments rolls a service job out, then a canary
// that is promoted, then a version failed by hand, all through
// github.com/hashicorp/nomad/api against a real dev agent.
func TestOfficialClientDeployments(t *testing.T) {
	_, c := devAgent(t)
	update := &api.UpdateStrategy{MaxParallel: pointerOf(1), HealthCheck: pointerOf("task_states"),
		MinHealthyTime: pointerOf(500 * time.Millisecond), HealthyDeadline: pointerOf(30 * time.Second),
		ProgressDeadline: pointerOf(time.Minute), Canary: pointerOf(0), AutoRevert: pointerOf(false), AutoPromote: pointerOf(false)}
	if _, _, err := c.Jobs().Register(serviceJob("dep", "300", update), nil); err != nil {
		t.Fatal(err)
	}
	d := waitDeployment(t, c, "dep", 0, "successful")
	if s := d.TaskGroups["g"]; s.DesiredTotal != 1 || s.HealthyAllocs != 1 || s.PlacedAllocs != 1 {
		t.Fatalf("deployment state %+v", s)
	}
	got, _, err := c.Deployments().Info(d.ID, nil)
	if err != nil || got.ID != d.ID || got.JobID != "dep" {
		t.Fatalf("info %+v: %v", got, err)
	}
	allocs, _, err := c.Deployments().Allocations(d.ID, nil)
	if err != nil || len(allocs) != 1 || allocs[0].DeploymentStatus == nil || allocs[0].DeploymentStatus.Healthy == nil ||
		!*allocs[0].DeploymentStatus.Healthy {
		t.Fatalf("deployment allocs %+v: %v", allocs, err)
	}

	canary := *update
	canary.Canary = pointerOf(1)
	if _, _, err := c.Jobs().Register(serviceJob("dep", "301", &canary), nil); err != nil {
		t.Fatal(err)
	}
	var pending *api.Deployment
	waitFor(t, 30*time.Second, "the canary healthy", func() error {
		var err error
		pending, _, err = c.Jobs().LatestDeployment("dep", nil)
		if err != nil || pending == nil || pending.JobVersion != 1 {
			return fmt.Errorf("deployment %+v: %v", pending, err)
		}
		if s := pending.TaskGroups["g"]; len(s.PlacedCanaries) != 1 || s.HealthyAllocs != 1 {
			return fmt.Errorf("group state %+v", s)
		}
		return nil
	})
	if pending.Status != "running" || pending.StatusDescription != "Deployment is running but requires manual promotion" {
		t.Fatalf("unpromoted deployment %s %q", pending.Status, pending.StatusDescription)
	}
	if _, _, err := c.Deployments().PromoteAll(pending.ID, nil); err != nil {
		t.Fatal(err)
	}
	waitDeployment(t, c, "dep", 1, "successful")

	slow := *update // stays running until failed by hand
	slow.MinHealthyTime, slow.HealthyDeadline, slow.ProgressDeadline = pointerOf(time.Minute), pointerOf(2*time.Minute), pointerOf(5*time.Minute)
	if _, _, err := c.Jobs().Register(serviceJob("dep", "302", &slow), nil); err != nil {
		t.Fatal(err)
	}
	running := waitDeployment(t, c, "dep", 2, "running")
	if _, _, err := c.Deployments().Pause(running.ID, true, nil); err != nil {
		t.Fatal(err)
	}
	waitDeployment(t, c, "dep", 2, "paused")
	if _, _, err := c.Deployments().Pause(running.ID, false, nil); err != nil {
		t.Fatal(err)
	}
	waitDeployment(t, c, "dep", 2, "running")
	if _, _, err := c.Deployments().Fail(running.ID, nil); err != nil {
		t.Fatal(err)
	}
	failed := waitDeployment(t, c, "dep", 2, "failed")
	if failed.StatusDescription != "Deployment marked as failed" {
		t.Fatalf("failed description %q", failed.StatusDescription)
	}
	list, _, err := c.Jobs().Deployments("dep", false, nil)
	if err != nil || len(list) != 3 || list[0].ID != failed.ID {
		t.Fatalf("job deployments %+v: %v", list, err)
	}
	all, _, err := c.Deployments().List(nil)
	if err != nil || len(all) != 3 {
		t.Fatalf("deployments %+v: %v", all, err)
	}
}

func pointerOf[T any](v T) *T { return &v }
