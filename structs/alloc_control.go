package structs

// Task event of a user-requested restart (alloc restart), Nomad's wording.
const (
	TaskRestartSignal = "Restart Signaled"
	// TaskRestartRunningReason is its display message.
	TaskRestartRunningReason = "User requested running tasks to restart"
	// TaskRestartUserReason is the RestartReason of the Restarting event
	// that follows a user-requested restart.
	TaskRestartUserReason = "Restart requested by user"
)

// AllocStopRPC stops one allocation so the scheduler replaces it.
const AllocStopRPC = "Alloc.Stop"

// AllocStopRequest asks the servers to stop an allocation and place a
// replacement (PUT /v1/allocation/:id/stop; Alloc.Stop). It is committed as
// an AllocUpdateDesiredTransitionRequest marking the alloc to migrate, with
// an "alloc-stop" evaluation for its job.
type AllocStopRequest struct {
	AllocID string
	WriteRequest
}

// AllocStopResponse answers Alloc.Stop with the evaluation that stops and
// replaces the allocation and the raft index of the write.
type AllocStopResponse struct {
	EvalID string
	Index  uint64
}

// AllocSignalRequest is the body of PUT /v1/client/allocation/:id/signal:
// Task empty signals every running task.
type AllocSignalRequest struct {
	Task   string
	Signal string
}

// AllocRestartRequest is the body of PUT /v1/client/allocation/:id/restart:
// TaskName restarts one task, AllTasks (or neither) every running task.
type AllocRestartRequest struct {
	TaskName string
	AllTasks bool
}
