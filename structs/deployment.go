package structs

import "time"

// Deployment statuses (Nomad's strings).
const (
	DeploymentStatusRunning    = "running"
	DeploymentStatusSuccessful = "successful"
	DeploymentStatusFailed     = "failed"
	DeploymentStatusCancelled  = "cancelled"
	DeploymentStatusPaused     = "paused"
)

// Deployment status descriptions (Nomad's).
const (
	DeploymentStatusDescriptionRunning               = "Deployment is running"
	DeploymentStatusDescriptionRunningNeedsPromotion = "Deployment is running but requires manual promotion"
	DeploymentStatusDescriptionSuccessful            = "Deployment completed successfully"
	DeploymentStatusDescriptionNewerJob              = "Cancelled due to newer version of job"
	DeploymentStatusDescriptionStoppedJob            = "Cancelled because job is stopped"
	DeploymentStatusDescriptionFailedAllocations     = "Failed due to unhealthy allocations"
	DeploymentStatusDescriptionProgressDeadline      = "Failed due to progress deadline"
	DeploymentStatusDescriptionFailedByUser          = "Deployment marked as failed"
	DeploymentStatusDescriptionPaused                = "Deployment is paused"
)

// EvalTriggerDeploymentWatcher is the trigger of evals the deployment
// watcher creates to continue a rollout.
const EvalTriggerDeploymentWatcher = "deployment-watcher"

// Deployment tracks the rollout of one job version.
type Deployment struct {
	ID             string
	Namespace      string
	JobID          string
	JobVersion     uint64
	JobModifyIndex uint64
	JobCreateIndex uint64
	// TaskGroups is the state of each group being deployed.
	TaskGroups        map[string]*DeploymentState
	Status            string
	StatusDescription string
	CreateIndex       uint64
	ModifyIndex       uint64
}

// DeploymentState is one group's progress in a deployment.
type DeploymentState struct {
	AutoRevert        bool
	AutoPromote       bool
	ProgressDeadline  time.Duration
	RequireProgressBy time.Time
	Promoted          bool
	PlacedCanaries    []string
	DesiredCanaries   int
	DesiredTotal      int
	PlacedAllocs      int
	HealthyAllocs     int
	UnhealthyAllocs   int
}

// NewDeployment returns a running deployment of job's current version.
func NewDeployment(job *Job) *Deployment {
	return &Deployment{
		ID: GenerateUUID(), Namespace: job.Namespace, JobID: job.ID, JobVersion: job.Version,
		JobModifyIndex: job.JobModifyIndex, JobCreateIndex: job.CreateIndex,
		TaskGroups: map[string]*DeploymentState{},
		Status:     DeploymentStatusRunning, StatusDescription: DeploymentStatusDescriptionRunning,
	}
}

// Active reports whether the deployment is still going.
func (d *Deployment) Active() bool {
	return d != nil && (d.Status == DeploymentStatusRunning || d.Status == DeploymentStatusPaused)
}

// RequiresPromotion reports whether a group has unpromoted canaries.
func (d *Deployment) RequiresPromotion() bool {
	if d == nil {
		return false
	}
	for _, s := range d.TaskGroups {
		if s.DesiredCanaries > 0 && !s.Promoted {
			return true
		}
	}
	return false
}

// Copy returns a deep copy (nil for nil).
func (d *Deployment) Copy() *Deployment {
	if d == nil {
		return nil
	}
	var out Deployment
	CopyVia(d, &out)
	return &out
}

// AllocDeploymentStatus is an allocation's health within its deployment, as
// its client reports it.
type AllocDeploymentStatus struct {
	// Healthy is nil until the client decided.
	Healthy     *bool
	Timestamp   time.Time
	Canary      bool
	ModifyIndex uint64
}

// IsHealthy reports whether the allocation was reported healthy.
func (s *AllocDeploymentStatus) IsHealthy() bool { return s != nil && s.Healthy != nil && *s.Healthy }

// IsUnhealthy reports whether the allocation was reported unhealthy.
func (s *AllocDeploymentStatus) IsUnhealthy() bool {
	return s != nil && s.Healthy != nil && !*s.Healthy
}

// IsCanary reports whether the allocation is a canary.
func (s *AllocDeploymentStatus) IsCanary() bool { return s != nil && s.Canary }

// DeploymentStatusUpdate is a status change of one deployment.
type DeploymentStatusUpdate struct {
	DeploymentID      string
	Status            string
	StatusDescription string
}

// DeploymentStatusUpdateRequest is the raft entry of a deployment status
// change, with an optional eval and an optional job to register (an
// auto-revert) and whether to mark the deployed job version stable.
type DeploymentStatusUpdateRequest struct {
	DeploymentUpdate *DeploymentStatusUpdate
	Eval             *Evaluation
	Job              *Job
	// MarkStable sets Stable on the job when its version is the
	// deployment's.
	MarkStable bool
	WriteRequest
}

// DeploymentPromoteRequest promotes the canaries of a deployment: every
// group (All) or the named ones.
type DeploymentPromoteRequest struct {
	DeploymentID string
	All          bool
	Groups       []string
	Eval         *Evaluation
	WriteRequest
}

// DeploymentPauseRequest pauses (or resumes) a deployment (API).
type DeploymentPauseRequest struct {
	DeploymentID string
	Pause        bool
	WriteRequest
}

// DeploymentFailRequest asks to fail a deployment (API).
type DeploymentFailRequest struct {
	DeploymentID string
	WriteRequest
}

// DeploymentUpdateResponse answers promote and fail (Nomad's shape).
type DeploymentUpdateResponse struct {
	EvalID                string
	EvalCreateIndex       uint64
	DeploymentModifyIndex uint64
	RevertedJobVersion    *uint64
	WriteMeta
}

// Deployment RPC methods.
const (
	DeploymentListRPC        = "Deployment.List"
	DeploymentGetRPC         = "Deployment.GetDeployment"
	DeploymentAllocationsRPC = "Deployment.Allocations"
	DeploymentPromoteRPC     = "Deployment.Promote"
	DeploymentFailRPC        = "Deployment.Fail"
	DeploymentByJobRPC       = "Deployment.ByJob"
	DeploymentPauseRPC       = "Deployment.Pause"
)

// DeploymentListRequest lists deployments (namespace and ID prefix).
type DeploymentListRequest struct {
	QueryOptions
}

// DeploymentListResponse answers Deployment.List and Deployment.ByJob,
// newest first.
type DeploymentListResponse struct {
	Deployments []*Deployment
	QueryMeta
}

// DeploymentSpecificRequest names one deployment.
type DeploymentSpecificRequest struct {
	DeploymentID string
	QueryOptions
}

// SingleDeploymentResponse answers Deployment.GetDeployment (nil: absent).
type SingleDeploymentResponse struct {
	Deployment *Deployment
	QueryMeta
}

// DeploymentAllocsResponse answers Deployment.Allocations.
type DeploymentAllocsResponse struct {
	Allocations []*AllocListStub
	QueryMeta
}

// DeploymentByJobRequest names a job whose deployments to list.
type DeploymentByJobRequest struct {
	JobID string
	QueryOptions
}
