package checks

import (
	"time"

	"github.com/nomadish/nomadish/structs"
)

// RestartWatch decides a check_restart: the task is restarted once its
// check reported unhealthy Limit consecutive times (critical; warning too
// unless IgnoreWarnings), none of them within Grace of the task's start.
// A healthy result starts the count over. Limit 0 never restarts (Nomad).
// Pure: one goroutine owns a RestartWatch.
type RestartWatch struct {
	policy     structs.CheckRestart
	graceUntil time.Time
	unhealthy  int
}

// NewRestartWatch returns the watch of a task started at started; nil
// when policy is nil or its limit 0.
func NewRestartWatch(policy *structs.CheckRestart, started time.Time) *RestartWatch {
	if policy == nil || policy.Limit <= 0 {
		return nil
	}
	return &RestartWatch{policy: *policy, graceUntil: started.Add(policy.Grace)}
}

// Observe takes the check's reported status at now and reports whether to
// restart the task; after a true answer the count starts over.
func (w *RestartWatch) Observe(status string, now time.Time) bool {
	if w == nil {
		return false
	}
	switch status {
	case structs.CheckCritical:
	case structs.CheckWarning:
		if w.policy.IgnoreWarnings {
			w.unhealthy = 0
			return false
		}
	default:
		w.unhealthy = 0
		return false
	}
	if now.Before(w.graceUntil) {
		return false
	}
	w.unhealthy++
	if w.unhealthy < w.policy.Limit {
		return false
	}
	w.unhealthy = 0
	return true
}
