package structs

// JobEvaluateRPC forces a new evaluation of a job (PUT /v1/job/:id/evaluate).
const JobEvaluateRPC = "Job.Evaluate"

// JobEvaluateRequest is Nomad's api.JobEvaluateRequest: the job to
// evaluate again and the evaluation's options.
type JobEvaluateRequest struct {
	JobID       string
	EvalOptions EvalOptions
	WriteRequest
}

// EvalOptions are the options of a forced evaluation. ForceReschedule
// marks the job's failed allocations (not yet replaced) so that the
// scheduler replaces them now, even past their reschedule policy.
type EvalOptions struct {
	ForceReschedule bool
}
