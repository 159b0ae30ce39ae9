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
// (Nomad: reschedule failed allocations even past their reschedule
// policy) is refused: the scheduler has no forced rescheduling yet.
type EvalOptions struct {
	ForceReschedule bool
}
