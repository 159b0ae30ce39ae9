package structs

import "time"

// Evaluation statuses.
const (
	EvalStatusBlocked   = "blocked"
	EvalStatusPending   = "pending"
	EvalStatusComplete  = "complete"
	EvalStatusFailed    = "failed"
	EvalStatusCancelled = "canceled"
)

// Evaluation triggers.
const (
	EvalTriggerJobRegister      = "job-register"
	EvalTriggerJobDeregister    = "job-deregister"
	EvalTriggerNodeUpdate       = "node-update"
	EvalTriggerRetryFailedAlloc = "alloc-failure"
	EvalTriggerQueuedAllocs     = "queued-allocs"
	EvalTriggerMaxPlans         = "max-plan-attempts"
	EvalTriggerAllocStop        = "alloc-stop"
	// EvalTriggerMaxDisconnectTimeout is the follow-up eval at the end of a
	// disconnect window (Nomad's name).
	EvalTriggerMaxDisconnectTimeout = "max-disconnect-timeout"
)

// Evaluation asks a scheduler to bring a job's allocations to its spec.
type Evaluation struct {
	ID                   string
	Namespace            string
	Priority             int
	Type                 string // scheduler type: the job's type
	TriggeredBy          string
	JobID                string
	JobModifyIndex       uint64
	NodeID               string
	NodeModifyIndex      uint64
	Status               string
	StatusDescription    string
	Wait                 time.Duration
	WaitUntil            time.Time
	NextEval             string
	PreviousEval         string
	BlockedEval          string
	FailedTGAllocs       map[string]*AllocMetric
	ClassEligibility     map[string]bool
	EscapedComputedClass bool
	QueuedAllocations    map[string]int
	SnapshotIndex        uint64
	// Extension: how many times the plan applier has sent this eval back.
	PlanAttempts int

	CreateIndex uint64
	ModifyIndex uint64
	CreateTime  int64
	ModifyTime  int64
}

// TerminalStatus reports whether the eval is finished.
func (e *Evaluation) TerminalStatus() bool {
	switch e.Status {
	case EvalStatusComplete, EvalStatusFailed, EvalStatusCancelled:
		return true
	}
	return false
}

// Copy returns a deep copy of the eval.
func (e *Evaluation) Copy() *Evaluation {
	if e == nil {
		return nil
	}
	var out Evaluation
	CopyVia(e, &out)
	return &out
}

// CreateBlockedEval returns the blocked follow-up of an eval whose placements
// failed; it is retried when capacity changes.
func (e *Evaluation) CreateBlockedEval(now time.Time) *Evaluation {
	return &Evaluation{
		ID: GenerateUUID(), Namespace: e.Namespace, Priority: e.Priority, Type: e.Type,
		TriggeredBy: EvalTriggerQueuedAllocs, JobID: e.JobID, JobModifyIndex: e.JobModifyIndex,
		Status: EvalStatusBlocked, PreviousEval: e.ID,
		CreateTime: now.UnixNano(), ModifyTime: now.UnixNano(),
	}
}
