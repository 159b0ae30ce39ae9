package structs

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/cronexpr"
)

// Periodic jobs (Nomad's periodic block): the parent is never scheduled; the
// leader's launcher (server/periodic) registers a child job per launch.

// PeriodicSpecCron is the only spec type (Nomad's).
const PeriodicSpecCron = "cron"

// PeriodicLaunchSuffix and DispatchLaunchSuffix join a parent's ID and a
// child's launch time in the child's ID, as Nomad.
const (
	PeriodicLaunchSuffix = "/periodic-"
	DispatchLaunchSuffix = "/dispatch-"
)

// PeriodicConfig is a job's periodic block (Nomad's JSON shape).
type PeriodicConfig struct {
	// Enabled turns launching on; a disabled periodic job launches nothing
	// (not even by force).
	Enabled bool
	// Spec is one cron expression (cron = ...), Specs several (crons = [...]);
	// the next launch is the earliest of them.
	Spec     string
	Specs    []string
	SpecType string
	// ProhibitOverlap skips a launch while a child is still running.
	ProhibitOverlap bool
	// TimeZone is an IANA name the crons are read in ("" and "UTC": UTC).
	TimeZone string
}

// Canonicalize fills the spec type and time zone.
func (p *PeriodicConfig) Canonicalize() {
	if p == nil {
		return
	}
	if p.SpecType == "" {
		p.SpecType = PeriodicSpecCron
	}
	if p.TimeZone == "" {
		p.TimeZone = "UTC"
	}
}

// Validate checks the spec type, every cron and the time zone.
func (p *PeriodicConfig) Validate() error {
	if p == nil || !p.Enabled {
		return nil
	}
	var errs MultiError
	if p.SpecType != PeriodicSpecCron {
		errs.Add(fmt.Errorf("periodic: unknown spec type %q (only %q)", p.SpecType, PeriodicSpecCron))
	}
	specs := p.AllSpecs()
	if len(specs) == 0 {
		errs.Add(fmt.Errorf("periodic: must specify a cron or crons"))
	}
	for _, s := range specs {
		if err := ValidateCron(s); err != nil {
			errs.Add(fmt.Errorf("periodic: %w", err))
		}
	}
	if _, err := p.Location(); err != nil {
		errs.Add(err)
	}
	return errs.ErrorOrNil()
}

// ValidateCron parses one cron expression (seconds allowed, as Nomad).
func ValidateCron(spec string) error {
	if strings.TrimSpace(spec) == "" {
		return fmt.Errorf("empty cron expression")
	}
	if _, err := cronexpr.Parse(spec); err != nil {
		return fmt.Errorf("invalid cron expression %q: %v", spec, err)
	}
	return nil
}

// AllSpecs returns Spec and Specs together.
func (p *PeriodicConfig) AllSpecs() []string {
	if p == nil {
		return nil
	}
	out := make([]string, 0, len(p.Specs)+1)
	if p.Spec != "" {
		out = append(out, p.Spec)
	}
	return append(out, p.Specs...)
}

// Location returns the time zone crons are evaluated in.
func (p *PeriodicConfig) Location() (*time.Location, error) {
	if p == nil || p.TimeZone == "" || p.TimeZone == "UTC" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(p.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("periodic: invalid time zone %q: %v", p.TimeZone, err)
	}
	return loc, nil
}

// Next returns the first launch strictly after from (zero time when none or
// a spec is invalid).
func (p *PeriodicConfig) Next(from time.Time) time.Time {
	loc, err := p.Location()
	if err != nil {
		return time.Time{}
	}
	var next time.Time
	for _, s := range p.AllSpecs() {
		expr, err := cronexpr.Parse(s)
		if err != nil {
			return time.Time{}
		}
		t := expr.Next(from.In(loc))
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	return next
}

// IsPeriodic reports whether the job is a periodic parent.
func (j *Job) IsPeriodic() bool { return j != nil && j.Periodic != nil }

// IsPeriodicActive reports whether the launcher launches the job's children.
func (j *Job) IsPeriodicActive() bool {
	return j.IsPeriodic() && j.Periodic.Enabled && !j.Stop && !j.IsParameterized()
}

// IsParameterized reports whether the job is a parameterized parent (its
// dispatched children keep the block but are not parents).
func (j *Job) IsParameterized() bool { return j != nil && j.ParameterizedJob != nil && !j.Dispatched }

// IsParent reports whether the job is only a template for children: the
// scheduler never places it (no evaluation on register).
func (j *Job) IsParent() bool { return j.IsPeriodic() || j.IsParameterized() }

// PeriodicChildID is the ID of the child launched at t.
func PeriodicChildID(parentID string, t time.Time) string {
	return parentID + PeriodicLaunchSuffix + strconv.FormatInt(t.Unix(), 10)
}

// PeriodicLaunch records a periodic parent's last launch (raft state, so a
// new leader neither skips nor repeats one).
type PeriodicLaunch struct {
	ID          string // the parent job's ID
	Namespace   string
	Launch      time.Time
	CreateIndex uint64
	ModifyIndex uint64
}

// PeriodicLaunchRequest is the raft entry (PeriodicLaunchRequestType) of one
// launch: the launch record, and the child with its evaluation unless the
// child already exists (then the entry only records the launch).
type PeriodicLaunchRequest struct {
	Launch *PeriodicLaunch
	Child  *Job
	Eval   *Evaluation
	WriteRequest
}

// NewPeriodicLaunch derives the child launched at launch from a canonical
// periodic parent, with its evaluation stamped now.
func NewPeriodicLaunch(parent *Job, launch, now time.Time) *PeriodicLaunchRequest {
	child := parent.Copy()
	child.ID = PeriodicChildID(parent.ID, launch)
	child.Name = child.ID
	child.ParentID = parent.ID
	child.Periodic = nil
	child.Status, child.StatusDescription = "", ""
	child.SubmitTime = now.UnixNano()
	child.Version, child.Stable = 0, false
	child.CreateIndex, child.ModifyIndex, child.JobModifyIndex = 0, 0, 0
	return &PeriodicLaunchRequest{
		Launch: &PeriodicLaunch{ID: parent.ID, Namespace: parent.Namespace, Launch: launch},
		Child:  child,
		Eval:   NewJobEval(child, EvalTriggerPeriodicJob, now),
	}
}

// EvalTriggerPeriodicJob and EvalTriggerJobDispatch are Nomad's triggers.
const (
	EvalTriggerPeriodicJob = "periodic-job"
	EvalTriggerJobDispatch = "job-dispatch"
)

// NewJobEval returns a pending evaluation of job.
func NewJobEval(job *Job, trigger string, now time.Time) *Evaluation {
	return &Evaluation{
		ID: GenerateUUID(), Namespace: job.Namespace, Priority: job.Priority, Type: job.Type,
		TriggeredBy: trigger, JobID: job.ID, Status: EvalStatusPending,
		CreateTime: now.UnixNano(), ModifyTime: now.UnixNano(),
	}
}

// PeriodicForceRequest launches a periodic job now (Job.PeriodicForce).
type PeriodicForceRequest struct {
	JobID string
	WriteRequest
}

// PeriodicForceResponse is Nomad's answer to a forced launch.
type PeriodicForceResponse struct {
	EvalID          string
	EvalCreateIndex uint64
	WriteMeta
}

// JobChildrenSummary counts a parent's children by status (Nomad's).
type JobChildrenSummary struct {
	Pending int64
	Running int64
	Dead    int64
}

// Count adds one child of status.
func (s *JobChildrenSummary) Count(status string) {
	switch status {
	case JobStatusRunning:
		s.Running++
	case JobStatusDead:
		s.Dead++
	default:
		s.Pending++
	}
}

// RPC methods of periodic and parameterized jobs.
const (
	JobDispatchRPC      = "Job.Dispatch"
	JobPeriodicForceRPC = "Job.PeriodicForce"
)

// UnmarshalJSON defaults Enabled to true when the JSON leaves it out or
// null, as Nomad's API canonicalizes a periodic block before the server
// sees it.
func (p *PeriodicConfig) UnmarshalJSON(b []byte) error {
	type plain PeriodicConfig
	var in struct {
		plain
		Enabled *bool
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*p = PeriodicConfig(in.plain)
	p.Enabled = in.Enabled == nil || *in.Enabled
	return nil
}
