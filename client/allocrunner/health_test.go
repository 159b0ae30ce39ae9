package allocrunner_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/client/allocrunner"
	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/structs"
)

func TestHealthAt(t *testing.T) {
	t0 := time.Unix(1000, 0)
	up := &structs.UpdateStrategy{MinHealthyTime: 10 * time.Second, HealthyDeadline: time.Minute}
	running := func(started time.Time) *structs.TaskState {
		return &structs.TaskState{State: structs.TaskStateRunning, StartedAt: started}
	}
	cases := []struct {
		name   string
		tasks  int
		states map[string]*structs.TaskState
		now    time.Time
		want   allocrunner.Health
	}{
		{"running, not long enough", 1, map[string]*structs.TaskState{"a": running(t0)}, t0.Add(5 * time.Second),
			allocrunner.Health{RecheckAt: t0.Add(10 * time.Second)}},
		{"running long enough", 1, map[string]*structs.TaskState{"a": running(t0)}, t0.Add(10 * time.Second),
			allocrunner.Health{Decided: true, Healthy: true}},
		{"a restart starts over", 1, map[string]*structs.TaskState{"a": {State: structs.TaskStateRunning, StartedAt: t0,
			LastRestart: t0.Add(8 * time.Second)}}, t0.Add(12 * time.Second), allocrunner.Health{RecheckAt: t0.Add(18 * time.Second)}},
		{"a task not started yet", 2, map[string]*structs.TaskState{"a": running(t0)}, t0.Add(20 * time.Second),
			allocrunner.Health{RecheckAt: t0.Add(time.Minute)}},
		{"pending past the deadline", 1, map[string]*structs.TaskState{"a": {State: structs.TaskStatePending}}, t0.Add(time.Minute),
			allocrunner.Health{Decided: true}},
		{"failed task", 2, map[string]*structs.TaskState{"a": running(t0), "b": {State: structs.TaskStateDead, Failed: true}},
			t0.Add(time.Second), allocrunner.Health{Decided: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := allocrunner.HealthAt(c.states, c.tasks, up, t0, c.now); got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func deployedAlloc(minHealthy, deadline time.Duration, tasks ...*structs.Task) *structs.Allocation {
	a := newAlloc(structs.JobTypeService, tasks...)
	a.Job.TaskGroups[0].Update = &structs.UpdateStrategy{MaxParallel: 1, HealthCheck: structs.UpdateHealthCheckTaskStates,
		MinHealthyTime: minHealthy, HealthyDeadline: deadline}
	a.DeploymentID = "d1"
	return a
}

func lastHealth(u *updates) *structs.Allocation {
	u.mu.Lock()
	defer u.mu.Unlock()
	for i := len(u.all) - 1; i >= 0; i-- {
		if u.all[i].DeploymentStatus != nil {
			return u.all[i]
		}
	}
	return nil
}

func TestHealthReportedHealthy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		u := &updates{}
		ar := start(t, deployedAlloc(10*time.Second, time.Minute, &structs.Task{Name: "web", Driver: "mock"}), clienttest.NewFakeDriver(), u)
		defer func() { ar.Kill(); <-ar.WaitCh() }()
		time.Sleep(9 * time.Second)
		synctest.Wait()
		if h := lastHealth(u); h != nil {
			t.Fatalf("health reported before min_healthy_time: %+v", h.DeploymentStatus)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		h := lastHealth(u)
		if h == nil || !h.DeploymentStatus.IsHealthy() || h.DeploymentID != "d1" {
			t.Fatalf("want healthy for d1, got %+v", h)
		}
	})
}

func TestHealthReportedUnhealthyOnFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		u := &updates{}
		ar := start(t, deployedAlloc(10*time.Second, time.Minute,
			&structs.Task{Name: "web", Driver: "mock", Config: map[string]any{"run_for": "2s", "exit_code": 1}}), clienttest.NewFakeDriver(), u)
		<-ar.WaitCh()
		synctest.Wait()
		if h := lastHealth(u); h == nil || !h.DeploymentStatus.IsUnhealthy() {
			t.Fatalf("want unhealthy, got %+v", h)
		}
	})
}

func TestHealthDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		u := &updates{}
		ar := start(t, deployedAlloc(time.Hour, 30*time.Second, &structs.Task{Name: "web", Driver: "mock"}), clienttest.NewFakeDriver(), u)
		defer func() { ar.Kill(); <-ar.WaitCh() }()
		time.Sleep(31 * time.Second)
		synctest.Wait()
		if h := lastHealth(u); h == nil || !h.DeploymentStatus.IsUnhealthy() {
			t.Fatalf("want unhealthy after the deadline, got %+v", h)
		}
	})
}

func TestNoHealthWithoutDeployment(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		u := &updates{}
		a := deployedAlloc(time.Second, time.Minute, &structs.Task{Name: "web", Driver: "mock"})
		a.DeploymentID = ""
		ar := start(t, a, clienttest.NewFakeDriver(), u)
		defer func() { ar.Kill(); <-ar.WaitCh() }()
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if h := lastHealth(u); h != nil {
			t.Fatalf("health reported without a deployment: %+v", h)
		}
	})
}
