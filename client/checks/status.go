package checks

import "github.com/nomadish/nomadish/structs"

// Tracker turns raw check results into the status a check reports, as
// Consul's status handler does (Nomad's checks follow it):
//
//   - the status starts as initial_status (pending when unset);
//   - passing is reported after success_before_passing consecutive passing
//     results (0 or 1: at once);
//   - a failure (warning or critical) resets the successes; warning is
//     reported after failures_before_warning consecutive failures,
//     critical after failures_before_critical; failures_before_warning
//     defaults to failures_before_critical (a raw warning never reports
//     critical);
//   - until a threshold is reached the previous status stays.
//
// Pure: one goroutine owns a Tracker.
type Tracker struct {
	successBefore, failWarn, failCrit int
	successes, failures               int
	status                            string
}

// NewTracker returns the tracker of check c, at its initial status.
func NewTracker(c *structs.ServiceCheck) *Tracker {
	t := &Tracker{status: structs.CheckPending}
	if c == nil {
		return t
	}
	if c.InitialStatus != "" {
		t.status = c.InitialStatus
	}
	t.successBefore, t.failCrit, t.failWarn = c.SuccessBeforePassing, c.FailuresBeforeCritical, c.FailuresBeforeWarning
	if t.failWarn == 0 {
		t.failWarn = t.failCrit
	}
	return t
}

// Status is the status reported now.
func (t *Tracker) Status() string { return t.status }

// Observe takes one raw result (passing, warning or critical) and returns
// the status reported after it.
func (t *Tracker) Observe(raw string) string {
	switch raw {
	case structs.CheckPassing:
		t.successes++
		t.failures = 0
		if t.successes >= t.successBefore {
			t.status = structs.CheckPassing
		}
	case structs.CheckWarning:
		t.failures++
		t.successes = 0
		if t.failures >= t.failWarn {
			t.status = structs.CheckWarning
		}
	default:
		t.failures++
		t.successes = 0
		switch {
		case t.failures >= t.failCrit:
			t.status = structs.CheckCritical
		case t.failures >= t.failWarn:
			t.status = structs.CheckWarning
		}
	}
	return t.status
}
