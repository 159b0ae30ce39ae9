package structs

// JobDeregisterEntry is the raft entry of JobDeregisterRequestType: the
// request (its WriteRequest.Namespace names the job's namespace) plus the
// job to store stopped (nil on purge). The server builds it; the FSM
// (server/fsm) applies it.
type JobDeregisterEntry struct {
	JobDeregisterRequest
	Job *Job
}

// EvalDeleteEntry is the raft entry of EvalDeleteRequestType: the IDs of
// the evaluations to delete.
type EvalDeleteEntry struct {
	Evals []string
}
