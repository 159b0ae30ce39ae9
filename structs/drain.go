package structs

import "time"

// Drain and migrate defaults (Nomad's).
const (
	DefaultMigrateMaxParallel     = 1
	DefaultMigrateMinHealthyTime  = 10 * time.Second
	DefaultMigrateHealthyDeadline = 5 * time.Minute
	MigrateHealthCheckChecks      = "checks"
	MigrateHealthCheckTaskStates  = "task_states"
	DefaultMigrateHealthCheck     = MigrateHealthCheckChecks
	NodeEventSubsystemDrain       = "Drain"
	NodeEventSubsystemCluster     = "Cluster"
	NodeEventDrainStrategySet     = "Node drain strategy set"
	NodeEventDrainStrategyUpdated = "Node drain strategy updated"
	NodeEventDrainDisabled        = "Node drain disabled"
	NodeEventDrainComplete        = "Node drain complete"
	NodeEventEligible             = "Node marked as eligible for scheduling"
	NodeEventIneligible           = "Node marked as ineligible for scheduling"
	AllocDescriptionMigrating     = "alloc is being migrated"
	DrainDeadlineForceImmediately = -1 * time.Second
)

// EvalTriggerNodeDrain marks the evals the drainer creates.
const EvalTriggerNodeDrain = "node-drain"

// RPC names of the drain endpoints.
const (
	NodeUpdateDrainRPC       = "Node.UpdateDrain"
	NodeUpdateEligibilityRPC = "Node.UpdateEligibility"
)

// DrainSpec is what a user asks for when draining a node (Nomad's API
// shape). Deadline is how long allocations may take to migrate before the
// rest are stopped at once: negative means now (-force), zero means never
// (-no-deadline).
type DrainSpec struct {
	Deadline         time.Duration
	IgnoreSystemJobs bool
}

// DrainStrategy is a node's drain in progress: the spec, when it started and
// when it is forced (zero: never).
type DrainStrategy struct {
	DrainSpec
	ForceDeadline time.Time
	StartedAt     time.Time
}

// Copy returns a copy of the strategy (nil for nil).
func (d *DrainStrategy) Copy() *DrainStrategy {
	if d == nil {
		return nil
	}
	c := *d
	return &c
}

// DeadlineTime returns whether the drain has no deadline, and the deadline
// otherwise.
func (d *DrainStrategy) DeadlineTime() (infinite bool, deadline time.Time) {
	if d == nil {
		return false, time.Time{}
	}
	if d.Deadline == 0 {
		return true, time.Time{}
	}
	return false, d.ForceDeadline
}

// NewDrainStrategy fills StartedAt and ForceDeadline from spec at now.
func NewDrainStrategy(spec DrainSpec, now time.Time) *DrainStrategy {
	d := &DrainStrategy{DrainSpec: spec, StartedAt: now}
	switch {
	case spec.Deadline < 0:
		d.ForceDeadline = now
	case spec.Deadline > 0:
		d.ForceDeadline = now.Add(spec.Deadline)
	}
	return d
}

// MigrateStrategy says how a group's allocations leave a draining node.
type MigrateStrategy struct {
	MaxParallel     int
	HealthCheck     string
	MinHealthyTime  time.Duration
	HealthyDeadline time.Duration
}

// DefaultMigrateStrategy is Nomad's default migrate block.
func DefaultMigrateStrategy() *MigrateStrategy {
	return &MigrateStrategy{
		MaxParallel: DefaultMigrateMaxParallel, HealthCheck: DefaultMigrateHealthCheck,
		MinHealthyTime: DefaultMigrateMinHealthyTime, HealthyDeadline: DefaultMigrateHealthyDeadline,
	}
}

// Canonicalize fills zero fields with the defaults.
func (m *MigrateStrategy) Canonicalize() {
	d := DefaultMigrateStrategy()
	if m.MaxParallel == 0 {
		m.MaxParallel = d.MaxParallel
	}
	if m.HealthCheck == "" {
		m.HealthCheck = d.HealthCheck
	}
	if m.MinHealthyTime == 0 {
		m.MinHealthyTime = d.MinHealthyTime
	}
	if m.HealthyDeadline == 0 {
		m.HealthyDeadline = d.HealthyDeadline
	}
}

// DesiredTransition is a change the server wants for a running allocation,
// apart from its desired status (Nomad's field).
type DesiredTransition struct {
	// Migrate is set by the drainer: the scheduler stops the allocation
	// and places a replacement on another node.
	Migrate *bool
	// ForceReschedule is set by `job eval -force-reschedule` (Job.Evaluate)
	// on failed allocations: the scheduler replaces them now, whatever
	// their reschedule policy says.
	ForceReschedule *bool
}

// ShouldForceReschedule reports whether the allocation is marked for a
// forced reschedule.
func (d DesiredTransition) ShouldForceReschedule() bool {
	return d.ForceReschedule != nil && *d.ForceReschedule
}

// ShouldMigrate reports whether the allocation is marked for migration.
func (d DesiredTransition) ShouldMigrate() bool { return d.Migrate != nil && *d.Migrate }

// NodeUpdateDrainRequest starts, changes or cancels (DrainStrategy nil) a
// node's drain (Node.UpdateDrain; raft entry NodeUpdateDrainRequestType).
type NodeUpdateDrainRequest struct {
	NodeID        string
	DrainStrategy *DrainStrategy
	// MarkEligible makes the node eligible again when the drain is
	// cancelled.
	MarkEligible bool
	// NodeEvent is recorded on the node (set by the server).
	NodeEvent *NodeEvent
	// UpdatedAt is unix nanoseconds (set by the server).
	UpdatedAt int64
	// Meta is stored in the event's details (Nomad's drain metadata).
	Meta map[string]string
	WriteRequest
}

// NodeUpdateEligibilityRequest sets a node's scheduling eligibility
// (Node.UpdateEligibility; raft entry NodeUpdateEligibilityRequestType).
type NodeUpdateEligibilityRequest struct {
	NodeID      string
	Eligibility string
	NodeEvent   *NodeEvent
	UpdatedAt   int64
	WriteRequest
}

// NodeDrainUpdateResponse answers Node.UpdateDrain and
// Node.UpdateEligibility.
type NodeDrainUpdateResponse struct {
	NodeModifyIndex uint64
	EvalIDs         []string
	EvalCreateIndex uint64
	QueryMeta
}

// AllocUpdateDesiredTransitionRequest sets desired transitions on
// allocations and creates evals for their jobs in one raft entry
// (AllocUpdateDesiredTransitionRequestType).
type AllocUpdateDesiredTransitionRequest struct {
	Allocs map[string]*DesiredTransition
	Evals  []*Evaluation
	WriteRequest
}

// canonicalizeMigrate gives a service group its migrate block: the group's
// fields, then the job's for those it leaves out, then the defaults; other
// job types have none (Nomad's rules).
func (tg *TaskGroup) canonicalizeMigrate(j *Job) {
	if j.Type != JobTypeService {
		tg.Migrate = nil
		return
	}
	if tg.Migrate == nil {
		tg.Migrate = &MigrateStrategy{}
	}
	if j.Migrate != nil {
		tg.Migrate.fillFrom(j.Migrate)
	}
	tg.Migrate.Canonicalize()
}

// fillFrom sets m's zero fields from o.
func (m *MigrateStrategy) fillFrom(o *MigrateStrategy) {
	if m.MaxParallel == 0 {
		m.MaxParallel = o.MaxParallel
	}
	if m.HealthCheck == "" {
		m.HealthCheck = o.HealthCheck
	}
	if m.MinHealthyTime == 0 {
		m.MinHealthyTime = o.MinHealthyTime
	}
	if m.HealthyDeadline == 0 {
		m.HealthyDeadline = o.HealthyDeadline
	}
}
