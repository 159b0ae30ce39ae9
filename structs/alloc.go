package structs

import "time"

// Allocation desired statuses (set by the scheduler).
const (
	AllocDesiredStatusRun   = "run"
	AllocDesiredStatusStop  = "stop"
	AllocDesiredStatusEvict = "evict"
)

// Allocation client statuses (set by the client).
const (
	AllocClientStatusPending  = "pending"
	AllocClientStatusRunning  = "running"
	AllocClientStatusComplete = "complete"
	AllocClientStatusFailed   = "failed"
	AllocClientStatusLost     = "lost"
	AllocClientStatusUnknown  = "unknown"
)

// Allocation is one task group instance placed on one node.
type Allocation struct {
	ID                 string
	Namespace          string
	EvalID             string
	Name               string // "<job>.<group>[<index>]"
	NodeID             string
	NodeName           string
	JobID              string
	Job                *Job
	TaskGroup          string
	AllocatedResources *AllocatedResources
	Metrics            *AllocMetric
	DesiredStatus      string
	DesiredDescription string
	ClientStatus       string
	ClientDescription  string
	TaskStates         map[string]*TaskState
	PreviousAllocation string
	NextAllocation     string
	FollowupEvalID     string
	// RescheduleTracker lists the reschedules that led to this allocation.
	RescheduleTracker *RescheduleTracker
	// PreemptedAllocations are the allocations evicted to make room for
	// this one; PreemptedByAllocation is the allocation this one was
	// evicted for.
	PreemptedAllocations  []string
	PreemptedByAllocation string
	// DeploymentID is the deployment that placed (or updated) the
	// allocation; DeploymentStatus its health there, reported by the client.
	DeploymentID     string
	DeploymentStatus *AllocDeploymentStatus
	// DesiredTransition is set by the drainer (Migrate).
	DesiredTransition DesiredTransition
	// NetworkStatus is the group network the client set up (bridge and
	// CNI modes), reported with the alloc's status.
	NetworkStatus *AllocNetworkStatus `json:",omitempty"`

	CreateIndex      uint64
	ModifyIndex      uint64
	AllocModifyIndex uint64
	CreateTime       int64
	ModifyTime       int64
}

// TerminalStatus reports whether the allocation is finished, by the server's
// wish or the client's report.
func (a *Allocation) TerminalStatus() bool {
	switch a.DesiredStatus {
	case AllocDesiredStatusStop, AllocDesiredStatusEvict:
		return true
	}
	return a.ClientTerminalStatus()
}

// ClientTerminalStatus reports whether the client says it has finished.
func (a *Allocation) ClientTerminalStatus() bool {
	switch a.ClientStatus {
	case AllocClientStatusComplete, AllocClientStatusFailed, AllocClientStatusLost:
		return true
	}
	return false
}

// Index returns the allocation's index in its group, parsed from its name.
func (a *Allocation) Index() uint {
	n := a.Name
	l := len(n)
	prefix := len(a.JobID) + len(a.TaskGroup) + 2
	if l <= 3 || l <= prefix {
		return 0
	}
	var idx uint
	for _, c := range n[prefix : l-1] {
		if c < '0' || c > '9' {
			return 0
		}
		idx = idx*10 + uint(c-'0')
	}
	return idx
}

// AllocName builds the name of the index'th allocation of a group.
func AllocName(job, group string, index uint) string {
	return job + "." + group + "[" + uitoa(index) + "]"
}

func uitoa(u uint) string {
	if u == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for u > 0 {
		i--
		b[i] = byte('0' + u%10)
		u /= 10
	}
	return string(b[i:])
}

// Copy returns a deep copy of the allocation.
func (a *Allocation) Copy() *Allocation {
	if a == nil {
		return nil
	}
	var out Allocation
	CopyVia(a, &out)
	return &out
}

// AllocListStub is the row of GET /v1/allocations and /v1/job/:id/allocations.
type AllocListStub struct {
	ID                    string
	EvalID                string
	Name                  string
	Namespace             string
	NodeID                string
	NodeName              string
	JobID                 string
	JobType               string
	JobVersion            uint64
	TaskGroup             string
	AllocatedResources    *AllocatedResources `json:",omitempty"`
	DesiredStatus         string
	DesiredDescription    string
	ClientStatus          string
	ClientDescription     string
	TaskStates            map[string]*TaskState
	FollowupEvalID        string
	RescheduleTracker     *RescheduleTracker
	PreemptedAllocations  []string `json:",omitempty"`
	PreemptedByAllocation string   `json:",omitempty"`
	DesiredTransition     DesiredTransition
	DeploymentStatus      *AllocDeploymentStatus
	CreateIndex           uint64
	ModifyIndex           uint64
	CreateTime            int64
	ModifyTime            int64
}

// Stub returns the list row of the allocation.
func (a *Allocation) Stub() *AllocListStub {
	s := &AllocListStub{
		ID: a.ID, EvalID: a.EvalID, Name: a.Name, Namespace: a.Namespace, NodeID: a.NodeID,
		NodeName: a.NodeName, JobID: a.JobID, TaskGroup: a.TaskGroup,
		DesiredStatus: a.DesiredStatus, DesiredDescription: a.DesiredDescription,
		ClientStatus: a.ClientStatus, ClientDescription: a.ClientDescription,
		TaskStates: a.TaskStates, FollowupEvalID: a.FollowupEvalID, RescheduleTracker: a.RescheduleTracker,
		DeploymentStatus:     a.DeploymentStatus,
		PreemptedAllocations: a.PreemptedAllocations, PreemptedByAllocation: a.PreemptedByAllocation,
		DesiredTransition: a.DesiredTransition, CreateIndex: a.CreateIndex, ModifyIndex: a.ModifyIndex,
		CreateTime: a.CreateTime, ModifyTime: a.ModifyTime,
	}
	if a.Job != nil {
		s.JobType = a.Job.Type
		s.JobVersion = a.Job.Version
	}
	return s
}

// AllocStubs returns the list rows of allocs (never nil, so an empty list
// encodes as []).
func AllocStubs(allocs []*Allocation) []*AllocListStub {
	out := make([]*AllocListStub, 0, len(allocs))
	for _, a := range allocs {
		out = append(out, a.Stub())
	}
	return out
}

// AllocMetric explains a placement: how many nodes were looked at and why
// each one that was not chosen was ruled out.
type AllocMetric struct {
	NodesEvaluated     int
	NodesFiltered      int
	NodesInPool        int
	NodesAvailable     map[string]int
	ClassFiltered      map[string]int
	ConstraintFiltered map[string]int
	NodesExhausted     int
	ClassExhausted     map[string]int
	DimensionExhausted map[string]int
	QuotaExhausted     []string
	ScoreMetaData      []*NodeScoreMeta
	AllocationTime     time.Duration
	CoalescedFailures  int
}

// NodeScoreMeta is one node's scores.
type NodeScoreMeta struct {
	NodeID    string
	Scores    map[string]float64
	NormScore float64
}

// Task states.
const (
	TaskStatePending = "pending"
	TaskStateRunning = "running"
	TaskStateDead    = "dead"
)

// TaskState is a task's life on its client.
type TaskState struct {
	State       string
	Failed      bool
	Restarts    uint64
	LastRestart time.Time
	StartedAt   time.Time
	FinishedAt  time.Time
	Events      []*TaskEvent
}

// Task event types (Nomad's strings).
const (
	TaskReceived         = "Received"
	TaskSetup            = "Task Setup"
	TaskStarted          = "Started"
	TaskTerminated       = "Terminated"
	TaskKilling          = "Killing"
	TaskKilled           = "Killed"
	TaskRestarting       = "Restarting"
	TaskNotRestarting    = "Not Restarting"
	TaskDriverFailure    = "Driver Failure"
	TaskSetupFailure     = "Setup Failure"
	TaskFailedValidation = "Failed Validation"
	TaskSignaling        = "Signaling"
	TaskResourcesUpdated = "Resources Updated" // in-place update of cpu/memory (client/taskrunner/update.go)
)

// TaskEvent is one step in a task's life.
type TaskEvent struct {
	Type           string
	Time           int64 // unix nanoseconds
	Message        string
	DisplayMessage string
	Details        map[string]string
	ExitCode       int
	Signal         int
	KillTimeout    time.Duration
	KillError      string
	RestartReason  string
	DriverError    string
	DownloadError  string // TaskArtifactDownloadFailed's reason (artifact.go)
	StartDelay     int64
	FailsTask      bool
}

// NewTaskEvent returns an event of the given type at now.
func NewTaskEvent(typ string, now time.Time) *TaskEvent {
	return &TaskEvent{Type: typ, Time: now.UnixNano(), Details: map[string]string{}}
}
