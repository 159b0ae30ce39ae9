package structs

import (
	"fmt"
	"time"
)

// Reschedule delay functions (Nomad's strings).
const (
	RescheduleDelayConstant    = "constant"
	RescheduleDelayExponential = "exponential"
	RescheduleDelayFibonacci   = "fibonacci"
)

// ReschedulePolicyMinDelay is the smallest delay an enabled policy may ask
// for. Nomad's is 5s; nomadish accepts down to 1s (every Nomad job stays
// valid) so that tests and demos need not wait.
const ReschedulePolicyMinDelay = time.Second

// maxPastRescheduleEvents is how many events an unlimited policy's tracker
// carries over to the replacement (Nomad's value).
const maxPastRescheduleEvents = 5

// ReschedulePolicy says when the scheduler replaces a failed allocation on
// another placement (as opposed to RestartPolicy, which restarts a task on
// the same node). Field names are Nomad's API.
type ReschedulePolicy struct {
	// Attempts limits the reschedules within Interval (when not Unlimited).
	Attempts int
	Interval time.Duration
	// Delay is the wait before the first reschedule; DelayFunction says how
	// it grows on later ones, up to MaxDelay.
	Delay         time.Duration
	DelayFunction string
	MaxDelay      time.Duration
	Unlimited     bool
}

// DefaultServiceReschedulePolicy is Nomad's default for service jobs.
func DefaultServiceReschedulePolicy() *ReschedulePolicy {
	return &ReschedulePolicy{Delay: 30 * time.Second, DelayFunction: RescheduleDelayExponential, MaxDelay: time.Hour, Unlimited: true}
}

// DefaultBatchReschedulePolicy is Nomad's default for batch jobs.
func DefaultBatchReschedulePolicy() *ReschedulePolicy {
	return &ReschedulePolicy{Attempts: 1, Interval: 24 * time.Hour, Delay: 5 * time.Second, DelayFunction: RescheduleDelayConstant}
}

// DefaultReschedulePolicy returns the default of a job type: nil for system
// and sysbatch jobs, which are never rescheduled.
func DefaultReschedulePolicy(jobType string) *ReschedulePolicy {
	switch jobType {
	case JobTypeService:
		return DefaultServiceReschedulePolicy()
	case JobTypeBatch:
		return DefaultBatchReschedulePolicy()
	}
	return nil
}

// Copy returns a copy of the policy (nil for nil).
func (r *ReschedulePolicy) Copy() *ReschedulePolicy {
	if r == nil {
		return nil
	}
	c := *r
	return &c
}

// Enabled reports whether the policy allows any reschedule.
func (r *ReschedulePolicy) Enabled() bool {
	return r != nil && (r.Attempts > 0 || r.Unlimited)
}

// canonicalize fills what an API client left unset and cannot mean: an
// empty delay function takes the job type's, and a growing delay without a
// ceiling gets Nomad's 1h.
func (r *ReschedulePolicy) canonicalize(jobType string) {
	if r.DelayFunction == "" {
		if def := DefaultReschedulePolicy(jobType); def != nil {
			r.DelayFunction = def.DelayFunction
		} else {
			r.DelayFunction = RescheduleDelayConstant
		}
	}
	if r.MaxDelay == 0 && r.DelayFunction != RescheduleDelayConstant {
		r.MaxDelay = time.Hour
	}
}

// validate adds the policy's problems to errs, each prefixed with where.
// A disabled policy (no attempts, not unlimited) is valid whatever the rest.
func (r *ReschedulePolicy) validate(where string, errs *MultiError) {
	add := func(format string, args ...any) {
		errs.Add(fmt.Errorf("%s: reschedule: "+format, append([]any{where}, args...)...))
	}
	if r.Attempts < 0 || r.Interval < 0 || r.Delay < 0 || r.MaxDelay < 0 {
		add("attempts, interval, delay and max_delay can't be negative")
		return
	}
	switch r.DelayFunction {
	case RescheduleDelayConstant, RescheduleDelayExponential, RescheduleDelayFibonacci:
	default:
		add("delay_function %q must be one of %q, %q or %q", r.DelayFunction,
			RescheduleDelayConstant, RescheduleDelayExponential, RescheduleDelayFibonacci)
	}
	if !r.Enabled() {
		return
	}
	if r.Attempts > 0 && r.Unlimited {
		add("attempts = %d with unlimited = true is ambiguous; set one of them", r.Attempts)
	}
	if r.Attempts > 0 && r.Interval <= 0 {
		add("interval must be set when attempts > 0")
	}
	if r.Delay < ReschedulePolicyMinDelay {
		add("delay %v is less than the minimum %v", r.Delay, ReschedulePolicyMinDelay)
	}
	if r.DelayFunction != RescheduleDelayConstant && r.MaxDelay < r.Delay {
		add("max_delay %v is less than delay %v", r.MaxDelay, r.Delay)
	}
}

// RescheduleTracker is an allocation's history of reschedules: the events
// that led to it, oldest first. The scheduler copies it to the replacement
// with one more event.
type RescheduleTracker struct {
	Events []*RescheduleEvent
}

// RescheduleEvent is one reschedule: when it happened, the allocation it
// replaced and the delay that was waited.
type RescheduleEvent struct {
	RescheduleTime int64 // unix nanoseconds
	PrevAllocID    string
	PrevNodeID     string
	Delay          time.Duration
}

// attemptsSince counts the events within interval before t.
func (rt *RescheduleTracker) attemptsSince(t time.Time, interval time.Duration) int {
	if rt == nil {
		return 0
	}
	n := 0
	for _, e := range rt.Events {
		if t.UnixNano()-e.RescheduleTime < interval.Nanoseconds() {
			n++
		}
	}
	return n
}

// FailTime is when the allocation failed: the latest FinishedAt of its
// tasks, or its ModifyTime when no task finished.
func (a *Allocation) FailTime() time.Time {
	var last time.Time
	for _, s := range a.TaskStates {
		if s != nil && s.FinishedAt.After(last) {
			last = s.FinishedAt
		}
	}
	if last.IsZero() {
		return time.Unix(0, a.ModifyTime).UTC()
	}
	return last
}

// RescheduleEligible reports whether policy allows one more reschedule of
// the allocation, which failed at failTime: unlimited, or fewer than
// Attempts reschedules in the Interval before failTime.
func (a *Allocation) RescheduleEligible(policy *ReschedulePolicy, failTime time.Time) bool {
	if !policy.Enabled() {
		return false
	}
	if policy.Unlimited {
		return true
	}
	return a.RescheduleTracker.attemptsSince(failTime, policy.Interval) < policy.Attempts
}

// NextDelay is how long after its failure the allocation may be rescheduled:
// Delay for the first reschedule, then by DelayFunction from the tracker's
// last delays (doubling, or the sum of the last two), capped at MaxDelay.
// Once capped, a failure more than MaxDelay after the last reschedule starts
// the series again at Delay (as Nomad does).
func (a *Allocation) NextDelay(policy *ReschedulePolicy) time.Duration {
	if policy == nil {
		return 0
	}
	var events []*RescheduleEvent
	if a.RescheduleTracker != nil {
		events = a.RescheduleTracker.Events
	}
	if len(events) == 0 {
		return policy.Delay
	}
	last := events[len(events)-1]
	d := policy.Delay
	switch policy.DelayFunction {
	case RescheduleDelayExponential:
		d = last.Delay * 2
	case RescheduleDelayFibonacci:
		if len(events) >= 2 {
			prev := events[len(events)-2]
			if prev.Delay == policy.MaxDelay && last.Delay == policy.Delay {
				d = last.Delay // the series was reset
			} else {
				d = last.Delay + prev.Delay
			}
		}
	default:
		return d
	}
	if policy.MaxDelay > 0 && d > policy.MaxDelay {
		d = policy.MaxDelay
		if a.FailTime().UnixNano()-last.RescheduleTime > d.Nanoseconds() {
			d = policy.Delay
		}
	}
	return d
}

// NextRescheduleTime returns when the failed allocation may be replaced and
// whether the policy allows it at all.
func (a *Allocation) NextRescheduleTime(policy *ReschedulePolicy) (time.Time, bool) {
	failed := a.FailTime()
	if a.ClientStatus != AllocClientStatusFailed || a.DesiredStatus != AllocDesiredStatusRun {
		return time.Time{}, false
	}
	return failed.Add(a.NextDelay(policy)), a.RescheduleEligible(policy, failed)
}

// NextRescheduleTracker returns the tracker of the allocation replacing a at
// now: a's events that still matter (those within the interval of a limited
// policy, the last few of an unlimited one) plus one for this reschedule.
func (a *Allocation) NextRescheduleTracker(policy *ReschedulePolicy, now time.Time) *RescheduleTracker {
	var events []*RescheduleEvent
	if a.RescheduleTracker != nil {
		past := a.RescheduleTracker.Events
		if policy != nil && policy.Attempts > 0 && !policy.Unlimited {
			for _, e := range past {
				if now.UnixNano()-e.RescheduleTime <= policy.Interval.Nanoseconds() {
					events = append(events, copyEvent(e))
				}
			}
		} else {
			for _, e := range past[max(0, len(past)-maxPastRescheduleEvents):] {
				events = append(events, copyEvent(e))
			}
		}
	}
	events = append(events, &RescheduleEvent{
		RescheduleTime: now.UnixNano(), PrevAllocID: a.ID, PrevNodeID: a.NodeID, Delay: a.NextDelay(policy),
	})
	return &RescheduleTracker{Events: events}
}

func copyEvent(e *RescheduleEvent) *RescheduleEvent { c := *e; return &c }
