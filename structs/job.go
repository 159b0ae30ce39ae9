package structs

import (
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
	Update *UpdateStrategy
	// Periodic and parameterized parents and dispatched children
	// (periodic.go, dispatch.go).
	Periodic                 *PeriodicConfig
	ParameterizedJob         *ParameterizedJobConfig
	Payload                  []byte
	Dispatched               bool
	DispatchIdempotencyToken string
	Stop                     bool
	Status                   string
	StatusDescription        string
	Stable                   bool
	Version                  uint64
	SubmitTime               int64

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
	Volumes             map[string]*VolumeRequest // volumes.go
	ShutdownDelay       *time.Duration            // wait after a stop before killing the tasks (lifecycle.go)
	Scaling             *ScalingPolicy            // scaling.go
	// Services are the group's `service` blocks (service.go).
	Services []*Service
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
	Artifacts   []*TaskArtifact // downloaded before each start (artifact.go)
	Templates   []*Template     // template blocks, rendered by the client before start (template.go)

	VolumeMounts []*VolumeMount // volumes.go
	// Lifecycle, RestartPolicy (over the group's) and ShutdownDelay: lifecycle.go.
	Lifecycle     *TaskLifecycleConfig
	RestartPolicy *RestartPolicy
	ShutdownDelay time.Duration
	// DispatchPayload writes a dispatched job's payload into the task's
	// local dir (dispatch.go).
	DispatchPayload *DispatchPayloadConfig
	// Services are the task's `service` blocks (service.go).
	Services []*Service
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
		Periodic: j.IsPeriodic(), ParameterizedJob: j.IsParameterized(),
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
	Children    *JobChildrenSummary // periodic.go: a parent's children
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
