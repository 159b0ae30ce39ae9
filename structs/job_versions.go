package structs

// JobTrackedVersions is how many versions of a job the state store keeps
// (Nomad's number).
const JobTrackedVersions = 6

// JobStabilityRequestType is the raft entry marking a job version stable
// (JobStabilityRequest). Its number is taken well past the shared list in
// raftmsg.go so concurrent additions there cannot collide; the list stays
// append-only.
const JobStabilityRequestType MessageType = 44

// RPC method names of job versions, revert and scale.
const (
	JobGetJobVersionsRPC = "Job.GetJobVersions"
	JobRevertRPC         = "Job.Revert"
	JobScaleRPC          = "Job.Scale"
	JobScaleStatusRPC    = "Job.ScaleStatus"
	JobStableRPC         = "Job.Stable"
)

// JobVersionsRequest lists a job's kept versions (Job.GetJobVersions).
type JobVersionsRequest struct {
	JobID string
	// Diffs asks for the diff between each version and the next older one.
	Diffs bool
	QueryOptions
}

// JobVersionsResponse answers Job.GetJobVersions: versions newest first;
// Diffs[i] turns Versions[i+1] into Versions[i] (one fewer than Versions).
type JobVersionsResponse struct {
	Versions []*Job
	Diffs    []*JobDiff
	QueryMeta
}

// JobRevertRequest registers an older version's spec again as a new
// version (Job.Revert).
type JobRevertRequest struct {
	JobID      string
	JobVersion uint64
	// EnforcePriorVersion, when set, makes the revert fail unless the job's
	// current version is this one.
	EnforcePriorVersion *uint64
	WriteRequest
}

// JobScaleRequest changes one group's count through a normal registration
// (Job.Scale); the body of PUT /v1/job/:id/scale (api.ScalingRequest).
type JobScaleRequest struct {
	JobID string
	// Target names the group: {"Group": name} ("Job" is ignored).
	Target map[string]string
	// Count is the new count; nil only records an event (nothing changes).
	Count   *int64
	Message string
	Error   bool
	Meta    map[string]any
	// JobModifyIndex, when not 0, must equal the job's current one.
	JobModifyIndex uint64
	PolicyOverride bool
	WriteRequest
}

// JobScaleStatusResponse answers Job.ScaleStatus (GET /v1/job/:id/scale).
type JobScaleStatusResponse struct {
	JobID          string
	Namespace      string
	JobCreateIndex uint64
	JobModifyIndex uint64
	JobStopped     bool
	TaskGroups     map[string]TaskGroupScaleStatus
	QueryMeta
}

// TaskGroupScaleStatus counts one group's allocations for the scale status.
type TaskGroupScaleStatus struct {
	Desired   int
	Placed    int
	Running   int
	Healthy   int
	Unhealthy int
	Events    []ScalingEvent
}

// ScalingEvent is one recorded scaling action (nomadish keeps none yet: the
// list is always empty, the shape is Nomad's).
type ScalingEvent struct {
	Count         *int64
	PreviousCount int64
	Error         bool
	Message       string
	Meta          map[string]any
	EvalID        *string
	Time          uint64
	CreateIndex   uint64
}

// JobStabilityRequest marks one version of a job stable (Job.Stable; the
// deployment watcher sets it when a deployment succeeds).
type JobStabilityRequest struct {
	JobID      string
	JobVersion uint64
	Stable     bool
	WriteRequest
}

// JobStabilityResponse answers Job.Stable.
type JobStabilityResponse struct {
	JobModifyIndex uint64
	WriteMeta
}
