package structs

import (
	"fmt"
	"time"
)

// Update health check modes (Nomad's strings). nomadish has no service
// checks: "checks" behaves as "task_states".
const (
	UpdateHealthCheckChecks     = "checks"
	UpdateHealthCheckTaskStates = "task_states"
	UpdateHealthCheckManual     = "manual"
)

// UpdateStrategy is a group's (or job's) update block: how a new job version
// replaces the allocations of the old one. Field names are Nomad's API.
type UpdateStrategy struct {
	// Stagger is the legacy delay between updates (kept for the API).
	Stagger time.Duration
	// MaxParallel is how many allocations are updated at once; 0 turns
	// rolling updates (and deployments) off.
	MaxParallel int
	// HealthCheck says how an allocation's health is decided.
	HealthCheck string
	// MinHealthyTime is how long every task must run before the
	// allocation is healthy.
	MinHealthyTime time.Duration
	// HealthyDeadline is how long an allocation has to become healthy
	// before it is marked unhealthy.
	HealthyDeadline time.Duration
	// ProgressDeadline fails the deployment when no allocation becomes
	// healthy for this long (0: never).
	ProgressDeadline time.Duration
	// AutoRevert re-registers the latest stable version when the
	// deployment fails.
	AutoRevert bool
	// AutoPromote promotes the canaries once they are all healthy.
	AutoPromote bool
	// Canary is how many allocations of a new version are placed beside
	// the old ones before a promotion lets the rollout go on.
	Canary int
}

// DefaultUpdateStrategy is Nomad's default for service jobs.
func DefaultUpdateStrategy() *UpdateStrategy {
	return &UpdateStrategy{
		Stagger: 30 * time.Second, MaxParallel: 1, HealthCheck: UpdateHealthCheckChecks,
		MinHealthyTime: 10 * time.Second, HealthyDeadline: 5 * time.Minute, ProgressDeadline: 10 * time.Minute,
	}
}

// Copy returns a copy (nil for nil).
func (u *UpdateStrategy) Copy() *UpdateStrategy {
	if u == nil {
		return nil
	}
	c := *u
	return &c
}

// Rolling reports whether the strategy asks for rolling updates (and
// deployments): MaxParallel above zero.
func (u *UpdateStrategy) Rolling() bool { return u != nil && u.MaxParallel > 0 }

// canonicalizeUpdate gives a service group without an update block the
// job's, or Nomad's default; groups of other job types keep what they have
// (the batch scheduler ignores it).
func (tg *TaskGroup) canonicalizeUpdate(j *Job) {
	if j.Type != JobTypeService {
		return
	}
	if tg.Update == nil {
		tg.Update = j.Update.Copy()
	}
	if tg.Update == nil {
		tg.Update = DefaultUpdateStrategy()
	}
	if tg.Update.HealthCheck == "" {
		tg.Update.HealthCheck = UpdateHealthCheckChecks
	}
}

// validateUpdate checks a group's update block.
func (tg *TaskGroup) validateUpdate(errs *MultiError) {
	u := tg.Update
	if u == nil {
		return
	}
	where := fmt.Sprintf("group %q: update", tg.Name)
	switch u.HealthCheck {
	case UpdateHealthCheckChecks, UpdateHealthCheckTaskStates, UpdateHealthCheckManual:
	default:
		errs.Add(fmt.Errorf("%s: invalid health_check %q: must be %q, %q or %q", where, u.HealthCheck,
			UpdateHealthCheckChecks, UpdateHealthCheckTaskStates, UpdateHealthCheckManual))
	}
	if u.MaxParallel < 0 {
		errs.Add(fmt.Errorf("%s: max_parallel can't be negative", where))
	}
	if u.Canary < 0 {
		errs.Add(fmt.Errorf("%s: canary can't be negative", where))
	}
	if u.MinHealthyTime < 0 || u.HealthyDeadline < 0 || u.ProgressDeadline < 0 || u.Stagger < 0 {
		errs.Add(fmt.Errorf("%s: durations can't be negative", where))
	}
	if u.Rolling() && u.HealthyDeadline > 0 && u.MinHealthyTime >= u.HealthyDeadline {
		errs.Add(fmt.Errorf("%s: min_healthy_time must be less than healthy_deadline", where))
	}
	if u.Rolling() && u.ProgressDeadline > 0 && u.HealthyDeadline > u.ProgressDeadline {
		errs.Add(fmt.Errorf("%s: healthy_deadline must be less than or equal to progress_deadline", where))
	}
	if u.AutoPromote && u.Canary == 0 {
		errs.Add(fmt.Errorf("%s: auto_promote needs canary > 0", where))
	}
}
