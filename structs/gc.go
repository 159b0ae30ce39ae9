package structs

// Server garbage collection: the leader's collector (server/gc) decides
// what to delete and commits it in bounded GCReapRequest batches; the
// System RPCs force a collection and reconcile job summaries.

// RPC method names of the System endpoint.
const (
	SystemGarbageCollectRPC        = "System.GarbageCollect"
	SystemReconcileJobSummariesRPC = "System.ReconcileJobSummaries"
)

// GCReapRequest is the raft entry of GCReapRequestType: objects the
// collector found old and finished, deleted in one state transaction. The
// state store checks each again at apply time (a job still dead, an
// allocation terminal, an evaluation terminal, a deployment inactive, a
// node down with no live allocation) and keeps whatever no longer is, so
// a race with a new registration deletes nothing live.
type GCReapRequest struct {
	Jobs        []NamespacedID
	Evals       []string
	Allocs      []string
	Deployments []string
	Nodes       []string
}

// Empty reports whether the request deletes nothing.
func (r *GCReapRequest) Empty() bool {
	return len(r.Jobs)+len(r.Evals)+len(r.Allocs)+len(r.Deployments)+len(r.Nodes) == 0
}

// Size is the number of objects the request names.
func (r *GCReapRequest) Size() int {
	return len(r.Jobs) + len(r.Evals) + len(r.Allocs) + len(r.Deployments) + len(r.Nodes)
}

// GCReapResponse counts what an applied GCReapRequest deleted (the FSM's
// response).
type GCReapResponse struct {
	Jobs, Evals, Allocs, Deployments, Nodes int
}

// JobSummaryReconcileRequest is the raft entry of
// JobSummaryReconcileRequestType: recompute every job's stored status from
// its allocations and evaluations (summaries are counted from the
// allocations at read time, so the status is what can drift).
type JobSummaryReconcileRequest struct{}

// SystemGCRequest is the argument of System.GarbageCollect and
// System.ReconcileJobSummaries (writes: served by the leader).
type SystemGCRequest struct {
	WriteRequest
}

// GCEligible reports whether the job's own state lets it be collected once
// old enough (Nomad's rule): a stopped job, or a dead one that is not a
// periodic or parameterized parent (a parent is collected only once
// stopped, and then only without live children). Its allocations and
// evaluations are checked by the caller.
func (j *Job) GCEligible() bool {
	if j.IsParent() {
		return j.Stop
	}
	return j.Stop || j.Status == JobStatusDead
}

// GCSafe reports whether deleting the allocation loses nothing live: it is
// terminal and its client does not report it running.
func (a *Allocation) GCSafe() bool {
	return a.TerminalStatus() && a.ClientStatus != AllocClientStatusRunning
}
