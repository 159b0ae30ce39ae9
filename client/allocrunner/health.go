package allocrunner

import (
	"time"

	"github.com/nomadish/nomadish/client/checks"
	"github.com/nomadish/nomadish/structs"
)

// Health is the verdict of HealthAt.
type Health struct {
	Decided bool
	Healthy bool
	// RecheckAt is when to look again if nothing changes (undecided only).
	RecheckAt time.Time
}

// HealthAt decides an allocation's deployment health from its task states
// alone (health_check "task_states", or a group without checks): healthy
// once every task has run for MinHealthyTime since the watch began (a
// restart starts the wait over); unhealthy when a task failed or finished,
// or HealthyDeadline passed since the watch began first.
func HealthAt(states map[string]*structs.TaskState, tasks int, up *structs.UpdateStrategy, since, now time.Time) Health {
	return HealthWithChecks(states, tasks, up, nil, since, now)
}

// HealthWithChecks is HealthAt with the allocation's checks: under
// health_check "checks" (the default) the allocation is healthy only once
// its tasks run and every check counted (ChecksHealthy) passes, both for
// MinHealthyTime; failing checks never decide unhealthy by themselves,
// HealthyDeadline does. Pure: now is passed in.
func HealthWithChecks(states map[string]*structs.TaskState, tasks int, up *structs.UpdateStrategy, cks []checks.Health, since, now time.Time) Health {
	deadline := time.Time{}
	if up.HealthyDeadline > 0 {
		deadline = since.Add(up.HealthyDeadline)
	}
	runningSince, allRunning := since, len(states) >= tasks
	for _, s := range states {
		switch {
		case s.State == structs.TaskStateDead:
			return Health{Decided: true, Healthy: false}
		case s.State != structs.TaskStateRunning:
			allRunning = false
		}
		for _, t := range []time.Time{s.StartedAt, s.LastRestart} {
			if t.After(runningSince) {
				runningSince = t
			}
		}
	}
	if up.HealthCheck != structs.UpdateHealthCheckTaskStates {
		ok, passingSince := ChecksHealthy(cks)
		if !ok {
			allRunning = false
		} else if passingSince.After(runningSince) {
			runningSince = passingSince
		}
	}
	if allRunning && !now.Before(runningSince.Add(up.MinHealthyTime)) {
		return Health{Decided: true, Healthy: true}
	}
	if !deadline.IsZero() && !now.Before(deadline) {
		return Health{Decided: true, Healthy: false}
	}
	next := deadline
	if allRunning {
		if at := runningSince.Add(up.MinHealthyTime); next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return Health{RecheckAt: next}
}

// ChecksHealthy reports whether the checks let the allocation be healthy,
// and since when: every check whose on_update is require_healthy passes,
// with ignore_warnings a warning counts as passing, ignore checks are not
// counted. since is when the last of them began passing; no counted
// checks: true and the zero time.
func ChecksHealthy(cks []checks.Health) (bool, time.Time) {
	var since time.Time
	for _, c := range cks {
		switch {
		case c.OnUpdate == structs.OnUpdateIgnore:
			continue
		case c.Status == structs.CheckPassing:
		case c.Status == structs.CheckWarning && c.OnUpdate == structs.OnUpdateIgnoreWarn:
		default:
			return false, time.Time{}
		}
		if c.Since.After(since) {
			since = c.Since
		}
	}
	return true, since
}

// healthWatch is the update block the alloc's health is watched under, or
// nil when its deployment health is not the client's to decide (no
// deployment, manual checks, or already reported).
func (ar *AllocRunner) healthWatch() (up *structs.UpdateStrategy, deploymentID string, tasks int) {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	a := ar.alloc
	tg := ar.group()
	if a.DeploymentID == "" || tg == nil || tg.Update == nil || a.TerminalStatus() ||
		tg.Update.HealthCheck == structs.UpdateHealthCheckManual || ar.healthFor == a.DeploymentID {
		return nil, "", 0
	}
	if a.DeploymentStatus != nil && a.DeploymentStatus.Healthy != nil {
		return nil, "", 0
	}
	ar.healthFor = a.DeploymentID
	ar.health = nil
	return tg.Update, a.DeploymentID, len(tg.Tasks)
}

// startHealthWatch starts watching the alloc's health for its current
// deployment, once per deployment.
func (ar *AllocRunner) startHealthWatch() {
	if up, id, tasks := ar.healthWatch(); up != nil {
		go ar.watchHealth(id, up, tasks, time.Now())
	}
}

// watchHealth re-decides on every task state change and at RecheckAt,
// until decided, then reports the verdict with the alloc's next update.
// Once every task is dead it decides one last time on the final states:
// the last task's death and the end of the run may arrive together.
func (ar *AllocRunner) watchHealth(deploymentID string, up *structs.UpdateStrategy, tasks int, since time.Time) {
	for {
		h, reported := ar.decideHealth(deploymentID, up, tasks, since)
		if reported {
			return
		}
		var timer *time.Timer
		var fire <-chan time.Time
		if !h.RecheckAt.IsZero() {
			timer = time.NewTimer(time.Until(h.RecheckAt))
			fire = timer.C
		}
		done := false
		select {
		case <-ar.healthCh:
		case <-fire:
		case <-ar.waitCh:
			done = true
		}
		if timer != nil {
			timer.Stop()
		}
		if done {
			ar.decideHealth(deploymentID, up, tasks, since)
			return
		}
	}
}

// decideHealth decides the alloc's health from the current task states
// and, when decided, records and reports the verdict; it reports whether
// the watch is over (decided, or the alloc moved to another deployment).
func (ar *AllocRunner) decideHealth(deploymentID string, up *structs.UpdateStrategy, tasks int, since time.Time) (Health, bool) {
	states, n := healthStates(ar.currentGroup(), ar.TaskStates()) // lifecycle_hooks.go
	h := HealthWithChecks(states, min(n, tasks), up, ar.checkHealth(), since, time.Now())
	if !h.Decided {
		return h, false
	}
	ar.mu.Lock()
	if ar.healthFor != deploymentID {
		ar.mu.Unlock()
		return h, true
	}
	healthy := h.Healthy
	ar.health = &structs.AllocDeploymentStatus{Healthy: &healthy, Timestamp: time.Now()}
	ar.mu.Unlock()
	ar.logger.Debug("alloc health decided", "deployment_id", deploymentID, "healthy", healthy)
	ar.sendUpdate()
	return h, true
}

// notifyHealth wakes the health watch after a task state change.
func (ar *AllocRunner) notifyHealth() {
	select {
	case ar.healthCh <- struct{}{}:
	default:
	}
}

// deploymentHealth returns the alloc's deployment ID and health verdict
// for the update sent to the server (nil until decided).
func (ar *AllocRunner) deploymentHealth() (string, *structs.AllocDeploymentStatus) {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	if ar.health == nil {
		return "", nil
	}
	h := *ar.health
	return ar.healthFor, &h
}
