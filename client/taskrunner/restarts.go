package taskrunner

import (
	"fmt"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// Restart reasons (Nomad's wording).
const (
	ReasonWithinPolicy  = "Restart within policy"
	ReasonUnrecoverable = "Error was unrecoverable"
)

// RestartState is what the restart policy remembers between exits. The
// task runner persists it with the task's state.
type RestartState struct {
	// Count is the number of restarts in the current interval.
	Count int
	// IntervalStart is when the current interval began (zero: none yet).
	IntervalStart time.Time
}

// RestartDecision is the outcome of one exit.
type RestartDecision struct {
	Restart bool
	Delay   time.Duration
	// Failed marks the task failed when it is not restarted.
	Failed bool
	Reason string
}

// NextRestart decides what to do after a task ended: result is its exit
// (nil when the driver failed to start it), startErrRecoverable says whether
// a start error may be retried. Batch tasks that exit 0 are done; any other
// exit is restarted per policy: up to Attempts restarts per Interval, each
// after Delay; past that, mode "fail" fails the task and mode "delay" waits
// for the interval to end and starts a new one. Pure: now is passed in.
func NextRestart(p *structs.RestartPolicy, jobType string, st RestartState, result *base.ExitResult, startErrRecoverable bool, now time.Time) (RestartDecision, RestartState) {
	if result != nil && result.Successful() && (jobType == structs.JobTypeBatch || jobType == structs.JobTypeSysBatch) {
		return RestartDecision{Reason: "Task completed successfully"}, st
	}
	if result == nil && !startErrRecoverable {
		return RestartDecision{Failed: true, Reason: ReasonUnrecoverable}, st
	}
	if p == nil {
		if jobType == structs.JobTypeBatch || jobType == structs.JobTypeSysBatch {
			p = structs.DefaultBatchRestartPolicy()
		} else {
			p = structs.DefaultServiceRestartPolicy()
		}
	}
	if st.IntervalStart.IsZero() || (p.Interval > 0 && !now.Before(st.IntervalStart.Add(p.Interval))) {
		st = RestartState{IntervalStart: now}
	}
	st.Count++
	if st.Count <= p.Attempts {
		return RestartDecision{Restart: true, Delay: p.Delay, Reason: ReasonWithinPolicy}, st
	}
	if p.Mode == structs.RestartPolicyModeDelay {
		delay := st.IntervalStart.Add(p.Interval).Sub(now)
		if delay < p.Delay {
			delay = p.Delay
		}
		reason := fmt.Sprintf("Exceeded allowed attempts %d in interval %v and mode is %q", p.Attempts, p.Interval, p.Mode)
		return RestartDecision{Restart: true, Delay: delay, Reason: reason}, RestartState{}
	}
	reason := fmt.Sprintf("Exceeded allowed attempts %d in interval %v and mode is %q", p.Attempts, p.Interval, p.Mode)
	return RestartDecision{Failed: true, Reason: reason}, st
}
