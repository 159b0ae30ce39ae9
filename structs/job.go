package structs

import (
	"fmt"
	"time"
)

// Job types.
const (
	JobTypeService  = "service"
	JobTypeBatch    = "batch"
	JobTypeSystem   = "system"
	JobTypeSysBatch = "sysbatch"
)

// Job statuses.
const (
	JobStatusPending = "pending"
	JobStatusRunning = "running"
	JobStatusDead    = "dead"
)

// Defaults applied by (*Job).Canonicalize.
const (
	DefaultNamespace   = "global"
	DefaultRegion      = "global"
	DefaultJobPriority = 50
	MinJobPriority     = 1
	MaxJobPriority     = 100
)

// Job is the unit a user submits: task groups to place on nodes.
type Job struct {
	Region      string
	Namespace   string
	ID          string
	ParentID    string
	Name        string
	Type        string
	Priority    int
	AllAtOnce   bool
	Datacenters []string
	NodePool    string
	TaskGroups  []*TaskGroup
	Constraints []*Constraint
	Affinities  []*Affinity
	Spreads     []*Spread
	Meta        map[string]string
	// Reschedule is the job-level reschedule policy (Nomad's API field):
	// Canonicalize gives it to every group without its own.
	Reschedule *ReschedulePolicy
	// Migrate is the job-level migrate block: Canonicalize gives it to
	// every group without its own.
	Migrate *MigrateStrategy
	// Update is the job-level update block: service groups without their
	// own take it (Canonicalize).
	Update            *UpdateStrategy
	Stop              bool
	Status            string
	StatusDescription string
	Stable            bool
	Version           uint64
	SubmitTime        int64

	CreateIndex    uint64
	ModifyIndex    uint64
	JobModifyIndex uint64
}

// TaskGroup is a set of tasks placed together on one node, Count times.
type TaskGroup struct {
	Name          string
	Count         int
	Tasks         []*Task
	RestartPolicy *RestartPolicy
	// ReschedulePolicy says when a failed allocation of the group is
	// replaced; nil (system jobs) means never.
	ReschedulePolicy *ReschedulePolicy
	Constraints      []*Constraint
	Affinities       []*Affinity
	Spreads          []*Spread
	EphemeralDisk    *EphemeralDisk
	// Migrate says how allocs leave a draining node (service jobs).
	Migrate *MigrateStrategy
	Meta    map[string]string
	// Update says how a new job version rolls out (service jobs only).
	Update *UpdateStrategy
	// Networks is the group's network block: the ports its allocations
	// hold on their node (network.go).
	Networks []*NetworkResource
	// MaxClientDisconnect (Nomad's older field) and Disconnect say how long
	// allocations on a disconnected node stay unknown before they are lost
	// (disconnect.go).
	MaxClientDisconnect *time.Duration
	Disconnect          *DisconnectStrategy
}

// Task is one process, container or VM run by a driver.
type Task struct {
	Name        string
	Driver      string
	User        string
	Config      map[string]any
	Env         map[string]string
	Resources   *Resources
	Meta        map[string]string
	KillTimeout time.Duration
	KillSignal  string
	Leader      bool
	LogConfig   *LogConfig // nil: the client's defaults (DefaultLogMaxFiles x DefaultLogMaxFileSizeMB)
	Constraints []*Constraint
	Affinities  []*Affinity
}

// Restart policy modes.
const (
	RestartPolicyModeDelay = "delay"
	RestartPolicyModeFail  = "fail"
)

// RestartPolicy says how a task runner restarts a failed task on the same node.
type RestartPolicy struct {
	Attempts        int
	Interval        time.Duration
	Delay           time.Duration
	Mode            string
	RenderTemplates bool
}

// DefaultServiceRestartPolicy and DefaultBatchRestartPolicy are Nomad's defaults.
func DefaultServiceRestartPolicy() *RestartPolicy {
	return &RestartPolicy{Attempts: 2, Interval: 30 * time.Minute, Delay: 15 * time.Second, Mode: RestartPolicyModeFail}
}

// DefaultBatchRestartPolicy is Nomad's default for batch jobs.
func DefaultBatchRestartPolicy() *RestartPolicy {
	return &RestartPolicy{Attempts: 3, Interval: 24 * time.Hour, Delay: 15 * time.Second, Mode: RestartPolicyModeFail}
}

// DefaultKillTimeout is the time between the kill signal and SIGKILL.
const DefaultKillTimeout = 5 * time.Second

// Canonicalize fills defaults in place: namespace, region, name, priority,
// datacenters, counts, restart and reschedule policies (a group without one
// takes the job's Reschedule, else the type's default), resources and kill
// timeouts.
// jobcheck.Prepare (the server, for every submitted job) and jobcheck.Check
// (`job validate`) call it before validation.
func (j *Job) Canonicalize() {
	if j == nil {
		return
	}
	if j.Namespace == "" {
		j.Namespace = "default"
	}
	if j.Region == "" {
		j.Region = DefaultRegion
	}
	if j.Name == "" {
		j.Name = j.ID
	}
	if j.Type == "" {
		j.Type = JobTypeService
	}
	if j.Priority == 0 {
		j.Priority = DefaultJobPriority
	}
	if len(j.Datacenters) == 0 {
		j.Datacenters = []string{"*"}
	}
	if j.NodePool == "" {
		j.NodePool = "default"
	}
	for _, tg := range j.TaskGroups {
		tg.canonicalize(j)
	}
}

func (tg *TaskGroup) canonicalize(j *Job) {
	switch {
	case j.Type == JobTypeSystem || j.Type == JobTypeSysBatch:
		// One allocation per feasible node: the count is ignored.
		tg.Count = 1
	case tg.Count == 0:
		// Nomad defaults a missing count to 1; an explicit 0 arrives as 0
		// only through the API, where we cannot tell them apart either.
		tg.Count = 1
	}
	if tg.RestartPolicy == nil {
		if j.Type == JobTypeBatch || j.Type == JobTypeSysBatch {
			tg.RestartPolicy = DefaultBatchRestartPolicy()
		} else {
			tg.RestartPolicy = DefaultServiceRestartPolicy()
		}
	}
	if tg.RestartPolicy.Mode == "" {
		tg.RestartPolicy.Mode = RestartPolicyModeFail
	}
	if tg.ReschedulePolicy == nil {
		if j.Reschedule != nil {
			tg.ReschedulePolicy = j.Reschedule.Copy()
		} else {
			tg.ReschedulePolicy = DefaultReschedulePolicy(j.Type)
		}
	}
	if tg.ReschedulePolicy != nil {
		tg.ReschedulePolicy.canonicalize(j.Type)
	}
	if tg.EphemeralDisk == nil {
		tg.EphemeralDisk = DefaultEphemeralDisk()
	}
	tg.canonicalizeMigrate(j)
	tg.canonicalizeUpdate(j)
	for _, t := range tg.Tasks {
		t.Canonicalize()
	}
}

// Canonicalize fills a task's defaults.
func (t *Task) Canonicalize() {
	if t.Resources == nil {
		t.Resources = DefaultResources()
	}
	t.Resources.Canonicalize()
	if t.KillTimeout == 0 {
		t.KillTimeout = DefaultKillTimeout
	}
}

// Validate checks a canonicalized job. The error lists every problem found,
// each naming the place (group/task) it concerns.
func (j *Job) Validate() error {
	var errs MultiError
	if j.ID == "" {
		errs.Add(fmt.Errorf("missing job ID"))
	} else if containsSpace(j.ID) {
		errs.Add(fmt.Errorf("job ID %q contains a space", j.ID))
	}
	if j.Name == "" {
		errs.Add(fmt.Errorf("missing job name"))
	}
	switch j.Type {
	case JobTypeService, JobTypeBatch, JobTypeSystem, JobTypeSysBatch:
	default:
		errs.Add(fmt.Errorf("invalid job type %q", j.Type))
	}
	if j.Priority < MinJobPriority || j.Priority > MaxJobPriority {
		errs.Add(fmt.Errorf("job priority must be between [%d, %d]", MinJobPriority, MaxJobPriority))
	}
	if len(j.TaskGroups) == 0 {
		errs.Add(fmt.Errorf("missing job task groups"))
	}
	validatePreferences("job", j.Affinities, j.Spreads, &errs)
	seen := map[string]bool{}
	for i, tg := range j.TaskGroups {
		if tg.Name == "" {
			errs.Add(fmt.Errorf("task group %d: missing name", i+1))
			continue
		}
		if seen[tg.Name] {
			errs.Add(fmt.Errorf("task group %q defined more than once", tg.Name))
		}
		seen[tg.Name] = true
		tg.validate(&errs)
	}
	j.validateConstraints(&errs)
	j.validateBounds(&errs) // validate_bounds.go: names, IDs, sizes
	return errs.ErrorOrNil()
}

func (tg *TaskGroup) validate(errs *MultiError) {
	if tg.Count < 0 {
		errs.Add(fmt.Errorf("group %q: count can't be negative", tg.Name))
	}
	if len(tg.Tasks) == 0 {
		errs.Add(fmt.Errorf("group %q: missing tasks", tg.Name))
	}
	if rp := tg.RestartPolicy; rp != nil {
		if rp.Mode != RestartPolicyModeDelay && rp.Mode != RestartPolicyModeFail {
			errs.Add(fmt.Errorf("group %q: restart mode %q must be %q or %q", tg.Name, rp.Mode, RestartPolicyModeDelay, RestartPolicyModeFail))
		}
		if rp.Attempts < 0 || rp.Delay < 0 || rp.Interval < 0 {
			errs.Add(fmt.Errorf("group %q: restart attempts, delay and interval can't be negative", tg.Name))
		}
	}
	if tg.ReschedulePolicy != nil {
		tg.ReschedulePolicy.validate(fmt.Sprintf("group %q", tg.Name), errs)
	}
	validatePreferences(fmt.Sprintf("group %q", tg.Name), tg.Affinities, tg.Spreads, errs)
	tg.validateUpdate(errs)
	tg.validateNetworks(errs)
	tg.validateDisconnect(errs)
	seen := map[string]bool{}
	for i, t := range tg.Tasks {
		if t.Name == "" {
			errs.Add(fmt.Errorf("group %q: task %d: missing name", tg.Name, i+1))
			continue
		}
		if seen[t.Name] {
			errs.Add(fmt.Errorf("group %q: task %q defined more than once", tg.Name, t.Name))
		}
		seen[t.Name] = true
		if t.Driver == "" {
			errs.Add(fmt.Errorf("group %q: task %q: missing driver", tg.Name, t.Name))
		}
		validatePreferences(fmt.Sprintf("group %q: task %q", tg.Name, t.Name), t.Affinities, nil, errs)
		if t.KillTimeout < 0 {
			errs.Add(fmt.Errorf("group %q: task %q: kill_timeout can't be negative", tg.Name, t.Name))
		}
		if t.Resources != nil {
			if err := t.Resources.Validate(); err != nil {
				errs.Add(fmt.Errorf("group %q: task %q: %w", tg.Name, t.Name, err))
			}
		}
	}
}

// LookupTaskGroup returns the named group or nil.
func (j *Job) LookupTaskGroup(name string) *TaskGroup {
	for _, tg := range j.TaskGroups {
		if tg.Name == name {
			return tg
		}
	}
	return nil
}

// LookupTask returns the named task or nil.
func (tg *TaskGroup) LookupTask(name string) *Task {
	for _, t := range tg.Tasks {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Stopped reports whether the job is stopped or nil.
func (j *Job) Stopped() bool { return j == nil || j.Stop }

// NamespacedID is a job's key.
type NamespacedID struct {
	ID        string
	Namespace string
}

// NamespacedID returns the job's key.
func (j *Job) NamespacedID() NamespacedID { return NamespacedID{ID: j.ID, Namespace: j.Namespace} }

// Copy returns a deep copy of the job (through the msgpack codec).
func (j *Job) Copy() *Job {
	if j == nil {
		return nil
	}
	var out Job
	CopyVia(j, &out)
	return &out
}

// JobListStub is the row of GET /v1/jobs.
type JobListStub struct {
	ID                string
	ParentID          string
	Name              string
	Namespace         string
	Datacenters       []string
	NodePool          string
	Type              string
	Priority          int
	Periodic          bool
	ParameterizedJob  bool
	Stop              bool
	Status            string
	StatusDescription string
	JobSummary        *JobSummary
	CreateIndex       uint64
	ModifyIndex       uint64
	JobModifyIndex    uint64
	SubmitTime        int64
}

// Stub returns the list row of the job, with the summary given.
func (j *Job) Stub(summary *JobSummary) *JobListStub {
	return &JobListStub{
		ID: j.ID, ParentID: j.ParentID, Name: j.Name, Namespace: j.Namespace,
		Datacenters: j.Datacenters, NodePool: j.NodePool, Type: j.Type, Priority: j.Priority,
		Stop: j.Stop, Status: j.Status, StatusDescription: j.StatusDescription,
		JobSummary: summary, CreateIndex: j.CreateIndex, ModifyIndex: j.ModifyIndex,
		JobModifyIndex: j.JobModifyIndex, SubmitTime: j.SubmitTime,
	}
}

// JobSummary counts a job's allocations by client status, per group.
type JobSummary struct {
	JobID       string
	Namespace   string
	Summary     map[string]TaskGroupSummary
	CreateIndex uint64
	ModifyIndex uint64
}

// NewJobSummary returns a summary of job with an empty row per group.
func NewJobSummary(job *Job) *JobSummary {
	sum := &JobSummary{JobID: job.ID, Namespace: job.Namespace, CreateIndex: job.CreateIndex,
		ModifyIndex: job.ModifyIndex, Summary: make(map[string]TaskGroupSummary, len(job.TaskGroups))}
	for _, tg := range job.TaskGroups {
		sum.Summary[tg.Name] = TaskGroupSummary{}
	}
	return sum
}

// Count adds one allocation of group with the given client status.
func (s *JobSummary) Count(group, clientStatus string) {
	tg := s.Summary[group]
	switch clientStatus {
	case AllocClientStatusPending:
		tg.Starting++
	case AllocClientStatusRunning:
		tg.Running++
	case AllocClientStatusComplete:
		tg.Complete++
	case AllocClientStatusFailed:
		tg.Failed++
	case AllocClientStatusLost:
		tg.Lost++
	default:
		tg.Unknown++
	}
	s.Summary[group] = tg
}

// TaskGroupSummary counts one group's allocations.
type TaskGroupSummary struct {
	Queued   int
	Complete int
	Failed   int
	Running  int
	Starting int
	Lost     int
	Unknown  int
}

func containsSpace(s string) bool {
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' {
			return true
		}
	}
	return false
}
