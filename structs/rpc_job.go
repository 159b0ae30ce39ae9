package structs

// The Job.* RPCs' requests and responses (the shared options and metas
// are in rpc.go).

// JobRegisterRequest registers or updates a job (Job.Register).
type JobRegisterRequest struct {
	Job            *Job
	EnforceIndex   bool
	JobModifyIndex uint64
	PolicyOverride bool
	// Submission is the job's source (nil: none kept). The server drops one
	// over the size limit and sets its bookkeeping fields; it travels in the
	// same raft entry as the job (an old entry without it decodes to nil).
	Submission *JobSubmission
	// Eval is the evaluation the server creates with the registration; it
	// travels in the same raft entry (set by the server, ignored from callers).
	Eval *Evaluation
	WriteRequest
}

// JobRegisterResponse answers Job.Register.
type JobRegisterResponse struct {
	EvalID          string
	EvalCreateIndex uint64
	JobModifyIndex  uint64
	Warnings        string
	QueryMeta
}

// JobDeregisterRequest stops (or purges) a job (Job.Deregister).
type JobDeregisterRequest struct {
	JobID string
	Purge bool
	// Eval is the deregistration evaluation, committed in the same raft
	// entry (set by the server, ignored from callers).
	Eval *Evaluation
	WriteRequest
}

// JobDeregisterResponse answers Job.Deregister.
type JobDeregisterResponse struct {
	EvalID          string
	EvalCreateIndex uint64
	JobModifyIndex  uint64
	QueryMeta
}

// JobPlanRequest dry-runs a job (Job.Plan).
type JobPlanRequest struct {
	Job  *Job
	Diff bool
	// WhyNotNode (extension) asks for the whole verdict of one node (ID,
	// unique ID prefix or name) for WhyNotGroup, or every group when empty.
	WhyNotNode  string `json:",omitempty"`
	WhyNotGroup string `json:",omitempty"`
	WriteRequest
}

// JobPlanResponse answers Job.Plan: what the scheduler would do.
type JobPlanResponse struct {
	Annotations    *PlanAnnotations
	FailedTGAllocs map[string]*AllocMetric
	JobModifyIndex uint64
	CreatedEvals   []*Evaluation
	Diff           *JobDiff
	Warnings       string
	// NodeVerdicts (extension) answers WhyNotNode: group -> the node's verdict.
	NodeVerdicts map[string]*NodeVerdict `json:",omitempty"`
	WriteMeta
}

// PlanAnnotations summarize a dry-run plan per task group.
type PlanAnnotations struct {
	DesiredTGUpdates map[string]*DesiredUpdates
	// PreemptedAllocs are the allocations the plan would evict.
	PreemptedAllocs []*AllocListStub
}

// DesiredUpdates counts what a plan does to one group.
type DesiredUpdates struct {
	Ignore            uint64
	Place             uint64
	Migrate           uint64
	Stop              uint64
	InPlaceUpdate     uint64
	DestructiveUpdate uint64
	Canary            uint64
	Preemptions       uint64
	// RescheduleNow counts failed allocs replaced now (also in Place);
	// RescheduleLater those waiting for their reschedule delay.
	RescheduleNow   uint64
	RescheduleLater uint64
}

// JobDiff and the other diff types are in diff.go.

// JobSpecificRequest names one job.
type JobSpecificRequest struct {
	JobID string
	All   bool
	QueryOptions
}

// SingleJobResponse answers Job.GetJob; Job is nil when not found.
type SingleJobResponse struct {
	Job *Job
	QueryMeta
}

// JobListRequest lists jobs.
type JobListRequest struct {
	QueryOptions
}

// JobListResponse answers Job.List.
type JobListResponse struct {
	Jobs []*JobListStub
	QueryMeta
}

// JobAllocationsResponse answers Job.Allocations.
type JobAllocationsResponse struct {
	Allocations []*AllocListStub
	QueryMeta
}

// JobEvaluationsResponse answers Job.Evaluations.
type JobEvaluationsResponse struct {
	Evaluations []*Evaluation
	QueryMeta
}
