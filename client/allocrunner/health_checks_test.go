package allocrunner_test

import (
	"testing"
	"time"

	"github.com/nomadish/nomadish/client/allocrunner"
	"github.com/nomadish/nomadish/client/checks"
	"github.com/nomadish/nomadish/structs"
)

func TestHealthWithChecks(t *testing.T) {
	t0 := time.Unix(1000, 0)
	up := &structs.UpdateStrategy{MinHealthyTime: 10 * time.Second, HealthyDeadline: time.Minute,
		HealthCheck: structs.UpdateHealthCheckChecks}
	states := map[string]*structs.TaskState{"a": {State: structs.TaskStateRunning, StartedAt: t0}}
	chk := func(onUpdate, status string, since time.Duration) checks.Health {
		return checks.Health{OnUpdate: onUpdate, Status: status, Since: t0.Add(since)}
	}
	const req, warnOK, ign = structs.OnUpdateRequireHealthy, structs.OnUpdateIgnoreWarn, structs.OnUpdateIgnore
	cases := []struct {
		name   string
		checks []checks.Health
		up     *structs.UpdateStrategy
		now    time.Duration
		want   allocrunner.Health
	}{
		{"no checks: task states alone", nil, up, 10 * time.Second, allocrunner.Health{Decided: true, Healthy: true}},
		{"a pending check holds health back", []checks.Health{chk(req, structs.CheckPending, 0)}, up, 30 * time.Second,
			allocrunner.Health{RecheckAt: t0.Add(time.Minute)}},
		{"min_healthy_time counts from the check passing", []checks.Health{chk(req, structs.CheckPassing, 5*time.Second)}, up,
			12 * time.Second, allocrunner.Health{RecheckAt: t0.Add(15 * time.Second)}},
		{"passing long enough", []checks.Health{chk(req, structs.CheckPassing, 5*time.Second)}, up, 15 * time.Second,
			allocrunner.Health{Decided: true, Healthy: true}},
		{"a warning fails require_healthy", []checks.Health{chk(req, structs.CheckWarning, 0)}, up, 20 * time.Second,
			allocrunner.Health{RecheckAt: t0.Add(time.Minute)}},
		{"ignore_warnings: a warning passes", []checks.Health{chk(warnOK, structs.CheckWarning, 0)}, up, 20 * time.Second,
			allocrunner.Health{Decided: true, Healthy: true}},
		{"ignore: not counted", []checks.Health{chk(ign, structs.CheckCritical, 0), chk(req, structs.CheckPassing, 0)}, up,
			20 * time.Second, allocrunner.Health{Decided: true, Healthy: true}},
		{"a critical check past the deadline is unhealthy", []checks.Health{chk(req, structs.CheckCritical, 0)}, up, time.Minute,
			allocrunner.Health{Decided: true}},
		{"task_states ignores checks", []checks.Health{chk(req, structs.CheckCritical, 0)},
			&structs.UpdateStrategy{MinHealthyTime: 10 * time.Second, HealthyDeadline: time.Minute, HealthCheck: structs.UpdateHealthCheckTaskStates},
			10 * time.Second, allocrunner.Health{Decided: true, Healthy: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := allocrunner.HealthWithChecks(states, 1, c.up, c.checks, t0, t0.Add(c.now)); got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}
