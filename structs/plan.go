package structs

// Plan is a scheduler's proposal for one evaluation: allocations to add or
// stop, keyed by node. The plan applier commits the part that still fits.
type Plan struct {
	EvalID   string
	Priority int
	Job      *Job
	// NodeUpdate holds allocations to stop (DesiredStatus set), by node.
	NodeUpdate map[string][]*Allocation
	// NodeAllocation holds allocations to place or update in place, by node.
	NodeAllocation map[string][]*Allocation
	// NodePreemptions holds allocations to evict to make room, by node.
	NodePreemptions map[string][]*Allocation
	// SnapshotIndex is the state index the scheduler planned against.
	SnapshotIndex uint64
	// Deployment is a deployment to create or update with the plan.
	Deployment *Deployment
	// DeploymentUpdates are status changes of other deployments (an old
	// version's, cancelled).
	DeploymentUpdates []*DeploymentStatusUpdate
}

// NewPlan returns an empty plan for the eval.
func NewPlan(eval *Evaluation, job *Job) *Plan {
	return &Plan{
		EvalID: eval.ID, Priority: eval.Priority, Job: job,
		NodeUpdate:      map[string][]*Allocation{},
		NodeAllocation:  map[string][]*Allocation{},
		NodePreemptions: map[string][]*Allocation{},
	}
}

// AppendAlloc adds a placement.
func (p *Plan) AppendAlloc(a *Allocation) {
	p.NodeAllocation[a.NodeID] = append(p.NodeAllocation[a.NodeID], a)
}

// AppendStoppedAlloc records that alloc should stop, with a description and
// an optional client status to set (e.g. lost).
func (p *Plan) AppendStoppedAlloc(a *Allocation, desc, clientStatus string) {
	s := a.Copy()
	s.DesiredStatus = AllocDesiredStatusStop
	s.DesiredDescription = desc
	if clientStatus != "" {
		s.ClientStatus = clientStatus
	}
	p.NodeUpdate[a.NodeID] = append(p.NodeUpdate[a.NodeID], s)
}

// AppendUnknownAlloc records that alloc, on a disconnected node, is now
// unknown: its client status becomes unknown and it stays desired to run
// (the plan applier treats it like a stop that keeps the desired status).
func (p *Plan) AppendUnknownAlloc(a *Allocation) {
	s := a.Copy()
	s.ClientStatus = AllocClientStatusUnknown
	p.NodeUpdate[a.NodeID] = append(p.NodeUpdate[a.NodeID], s)
}

// IsNoOp reports whether the plan changes nothing.
func (p *Plan) IsNoOp() bool {
	return len(p.NodeUpdate) == 0 && len(p.NodeAllocation) == 0 && len(p.NodePreemptions) == 0 &&
		p.Deployment == nil && len(p.DeploymentUpdates) == 0
}

// Fields returns key/value pairs for structured logs.
func (p *Plan) Fields() []any {
	return []any{"eval_id", p.EvalID, "place", countAllocs(p.NodeAllocation), "stop", countAllocs(p.NodeUpdate), "preempt", countAllocs(p.NodePreemptions)}
}

// PlanResult is what the plan applier committed.
type PlanResult struct {
	NodeUpdate      map[string][]*Allocation
	NodeAllocation  map[string][]*Allocation
	NodePreemptions map[string][]*Allocation
	// RefreshIndex is non-zero when part of the plan was rejected: the
	// scheduler must refresh its state to at least this index and retry.
	RefreshIndex uint64
	// AllocIndex is the raft index at which the result was committed.
	AllocIndex uint64
	// RejectedNodes names the nodes whose part did not fit.
	RejectedNodes []string
}

// FullCommit reports whether everything in the plan was committed, and the
// counts expected and actually committed.
func (r *PlanResult) FullCommit(p *Plan) (bool, int, int) {
	expected, actual := 0, 0
	for node, allocs := range p.NodeAllocation {
		expected += len(allocs)
		actual += len(r.NodeAllocation[node])
	}
	return expected == actual, expected, actual
}

// Fields returns key/value pairs for structured logs.
func (r *PlanResult) Fields() []any {
	return []any{"placed", countAllocs(r.NodeAllocation), "stopped", countAllocs(r.NodeUpdate), "refresh_index", r.RefreshIndex, "rejected_nodes", len(r.RejectedNodes)}
}

func countAllocs(m map[string][]*Allocation) int {
	n := 0
	for _, as := range m {
		n += len(as)
	}
	return n
}
