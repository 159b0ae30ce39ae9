package structs

// MessageType prefixes every raft log entry. The list is append-only: never
// renumber or reuse a value. A follower running older code skips an entry
// whose type has IgnoreUnknownTypeFlag set and panics on any other unknown
// type (a broken invariant: it cannot apply the log faithfully).
type MessageType uint8

const (
	NodeRegisterRequestType                 MessageType = 0
	NodeDeregisterRequestType               MessageType = 1
	NodeUpdateStatusRequestType             MessageType = 2
	JobRegisterRequestType                  MessageType = 3
	JobDeregisterRequestType                MessageType = 4
	EvalUpdateRequestType                   MessageType = 5
	EvalDeleteRequestType                   MessageType = 6
	AllocUpdateRequestType                  MessageType = 7 // server-side alloc writes
	AllocClientUpdateRequestType            MessageType = 8 // client status reports
	ApplyPlanResultsRequestType             MessageType = 9
	NodeUpdateDrainRequestType              MessageType = 10
	NodeUpdateEligibilityRequestType        MessageType = 11
	AllocUpdateDesiredTransitionRequestType MessageType = 12
	DeploymentStatusUpdateRequestType       MessageType = 13
	DeploymentPromoteRequestType            MessageType = 14
	SchedulerConfigRequestType              MessageType = 15 // SchedulerSetConfigRequest

	// ACL state (60..69 are ACL's).
	ACLPolicyUpsertRequestType   MessageType = 60 // ACLPolicyUpsertRequest
	ACLPolicyDeleteRequestType   MessageType = 61 // ACLPolicyDeleteRequest
	ACLTokenUpsertRequestType    MessageType = 62 // ACLTokenUpsertRequest
	ACLTokenDeleteRequestType    MessageType = 63 // ACLTokenDeleteRequest
	ACLTokenBootstrapRequestType MessageType = 64 // ACLTokenBootstrapRequest
	ACLRoleUpsertRequestType     MessageType = 65 // ACLRolesUpsertRequest
	ACLRoleDeleteRequestType     MessageType = 66 // ACLRolesDeleteByIDRequest

	PeriodicLaunchRequestType MessageType = 80 // PeriodicLaunchRequest (periodic.go)

	// Service registrations (100..109 are the services'; service.go).
	ServiceRegistrationUpsertRequestType           MessageType = 100 // ServiceRegistrationUpsertRequest
	ServiceRegistrationDeleteByIDRequestType       MessageType = 101 // ServiceRegistrationDelByIDRequest
	ServiceRegistrationDeleteByAllocIDsRequestType MessageType = 102 // ServiceRegistrationDelByAllocIDsRequest

	// Server garbage collection (110..114 are the GC's; gc.go).
	GCReapRequestType              MessageType = 110 // GCReapRequest
	JobSummaryReconcileRequestType MessageType = 111 // JobSummaryReconcileRequest
)

// IgnoreUnknownTypeFlag marks an entry that older servers may skip.
const IgnoreUnknownTypeFlag MessageType = 128

// ApplyPlanResultsRequest is the raft entry the plan applier commits.
type ApplyPlanResultsRequest struct {
	// Job is the job the plan was made for (allocations reference it).
	Job *Job
	// AllocsPlaced are new or updated allocations.
	AllocsPlaced []*Allocation
	// AllocsStopped carry only ID, DesiredStatus, DesiredDescription and
	// ClientStatus changes to apply to existing allocations.
	AllocsStopped []*Allocation
	// AllocsPreempted are evicted to make room.
	AllocsPreempted []*Allocation
	// EvalID is the evaluation the plan belongs to.
	EvalID string
	// Evals are evaluations to upsert with the plan (e.g. for preempted jobs).
	Evals []*Evaluation
	// UpdatedAt is the commit time, in unix nanoseconds (set by the leader).
	UpdatedAt int64
	// Deployment is created or updated with the plan; DeploymentUpdates
	// change other deployments' status.
	Deployment        *Deployment
	DeploymentUpdates []*DeploymentStatusUpdate
}
