package structs

import (
	"fmt"
	"time"
)

// Task lifecycle hooks (Nomad's lifecycle block): when a task runs relative
// to the group's main tasks (those without a lifecycle block).
const (
	TaskLifecycleHookPrestart  = "prestart"  // before the main tasks start
	TaskLifecycleHookPoststart = "poststart" // once every main task runs
	TaskLifecycleHookPoststop  = "poststop"  // once every other task stopped
)

// Task event types of the lifecycle and of stopping (Nomad's strings).
const (
	TaskWaitingShuttingDownDelay = "Waiting for shutdown delay"
	TaskMainDead                 = "Main Tasks Dead"
	TaskSiblingFailed            = "Sibling Task Failed"
	TaskLeaderDead               = "Leader Task Dead"
	TaskWaitingForLifecycle      = "Waiting" // not started yet: its lifecycle phase is not due
)

// TaskLifecycleConfig is a task's lifecycle block. Sidecar tasks keep
// running (and are restarted, even after exit 0) until the main tasks are
// done; the others run to completion.
type TaskLifecycleConfig struct {
	Hook    string
	Sidecar bool
}

// Validate checks the hook (Nomad's messages).
func (l *TaskLifecycleConfig) Validate() error {
	if l == nil {
		return nil
	}
	switch l.Hook {
	case TaskLifecycleHookPrestart, TaskLifecycleHookPoststart, TaskLifecycleHookPoststop:
		return nil
	case "":
		return fmt.Errorf("no lifecycle hook provided")
	}
	return fmt.Errorf("invalid lifecycle hook %q: must be %q, %q or %q", l.Hook,
		TaskLifecycleHookPrestart, TaskLifecycleHookPoststart, TaskLifecycleHookPoststop)
}

// IsMain reports whether t is a main task (no lifecycle block).
func (t *Task) IsMain() bool { return t.Lifecycle == nil }

// IsHook reports whether t runs at the given lifecycle hook.
func (t *Task) IsHook(hook string) bool { return t.Lifecycle != nil && t.Lifecycle.Hook == hook }

// IsSidecar reports whether t is a lifecycle sidecar.
func (t *Task) IsSidecar() bool { return t.Lifecycle != nil && t.Lifecycle.Sidecar }

// RestartOnSuccess reports whether an exit 0 of t is restarted (as Nomad's
// restart tracker): batch tasks are done; prestart and poststart tasks are
// restarted only as sidecars; poststop tasks never.
func (t *Task) RestartOnSuccess(jobType string) bool {
	on := jobType != JobTypeBatch && jobType != JobTypeSysBatch
	if t.Lifecycle != nil {
		switch t.Lifecycle.Hook {
		case TaskLifecycleHookPrestart, TaskLifecycleHookPoststart:
			on = t.Lifecycle.Sidecar
		case TaskLifecycleHookPoststop:
			on = false
		}
	}
	return on
}

// canonicalizeRestart gives the task the group's restart policy, or merges
// the group's into a partial one (Mode unset: an API job that named only
// some fields): the task's non-zero fields win. The job file decoder
// (jobspec) already merges attribute by attribute, so its policies are whole.
func (t *Task) canonicalizeRestart(tg *TaskGroup) {
	if tg.RestartPolicy == nil {
		return
	}
	if t.RestartPolicy == nil {
		c := *tg.RestartPolicy
		t.RestartPolicy = &c
		return
	}
	if t.RestartPolicy.Mode != "" {
		return
	}
	m := *tg.RestartPolicy
	if t.RestartPolicy.Attempts != 0 {
		m.Attempts = t.RestartPolicy.Attempts
	}
	if t.RestartPolicy.Interval != 0 {
		m.Interval = t.RestartPolicy.Interval
	}
	if t.RestartPolicy.Delay != 0 {
		m.Delay = t.RestartPolicy.Delay
	}
	m.RenderTemplates = m.RenderTemplates || t.RestartPolicy.RenderTemplates
	t.RestartPolicy = &m
}

// validateRestart checks a restart policy; where names its place.
func validateRestart(where string, rp *RestartPolicy, errs *MultiError) {
	if rp == nil {
		return
	}
	if rp.Mode != RestartPolicyModeDelay && rp.Mode != RestartPolicyModeFail {
		errs.Add(fmt.Errorf("%s: restart mode %q must be %q or %q", where, rp.Mode, RestartPolicyModeDelay, RestartPolicyModeFail))
	}
	if rp.Attempts < 0 || rp.Delay < 0 || rp.Interval < 0 {
		errs.Add(fmt.Errorf("%s: restart attempts, delay and interval can't be negative", where))
	}
}

// validateLifecycle checks the group's and its tasks' lifecycle fields:
// hooks, task restart policies, shutdown delays, and at most one leader.
func (tg *TaskGroup) validateLifecycle(errs *MultiError) {
	if tg.ShutdownDelay != nil && *tg.ShutdownDelay < 0 {
		errs.Add(fmt.Errorf("group %q: shutdown_delay can't be negative", tg.Name))
	}
	leaders := 0
	for _, t := range tg.Tasks {
		where := fmt.Sprintf("group %q: task %q", tg.Name, t.Name)
		if err := t.Lifecycle.Validate(); err != nil {
			errs.Add(fmt.Errorf("%s: lifecycle: %w", where, err))
		}
		validateRestart(where, t.RestartPolicy, errs)
		if t.ShutdownDelay < 0 {
			errs.Add(fmt.Errorf("%s: shutdown_delay can't be negative", where))
		}
		if t.Leader {
			leaders++
		}
	}
	if leaders > 1 {
		errs.Add(fmt.Errorf("group %q: only one task may be marked as leader", tg.Name))
	}
}

// GroupShutdownDelay returns the group's shutdown delay (0 when unset).
func (tg *TaskGroup) GroupShutdownDelay() time.Duration {
	if tg == nil || tg.ShutdownDelay == nil {
		return 0
	}
	return *tg.ShutdownDelay
}
