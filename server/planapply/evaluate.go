package planapply

import (
	"fmt"
	"slices"
	"sort"

	"github.com/nomadish/nomadish/structs"
)

// nodeIDs returns every node the plan touches, sorted.
func nodeIDs(p *structs.Plan) []string {
	seen := map[string]bool{}
	for _, m := range []map[string][]*structs.Allocation{p.NodeUpdate, p.NodeAllocation, p.NodePreemptions} {
		for id := range m {
			seen[id] = true
		}
	}
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// evaluateNode reports whether the plan's part for one node may be committed
// on top of snap, and if not, why. Stops and preemptions alone always fit
// (even on a missing or down node), and so do in-place updates of finished
// allocs (a failed alloc's FollowupEvalID): they use nothing. With
// placements, the node must exist and be ready, and its non-terminal allocs,
// minus those the plan stops, preempts or updates in place, plus every alloc
// the plan places there, must fit.
func evaluateNode(snap Snapshot, p *structs.Plan, nodeID string) (bool, string, error) {
	place := p.NodeAllocation[nodeID]
	if !slices.ContainsFunc(place, func(a *structs.Allocation) bool { return !a.TerminalStatus() }) {
		return true, "", nil
	}
	node, err := snap.NodeByID(nodeID)
	if err != nil {
		return false, "", fmt.Errorf("looking up node %q: %w", nodeID, err)
	}
	if node == nil {
		return false, "node does not exist", nil
	}
	if node.Status != structs.NodeStatusReady {
		return false, fmt.Sprintf("node is %s, not ready for placements", node.Status), nil
	}
	if us, ok := sums(snap); ok && summable(place) {
		return fitsBySums(us, node, p, nodeID)
	}
	existing, err := snap.LiveAllocsByNode(nodeID)
	if err != nil {
		return false, "", fmt.Errorf("looking up allocs of node %q: %w", nodeID, err)
	}
	proposed := proposedAllocs(existing, p.NodeUpdate[nodeID], p.NodePreemptions[nodeID], place)
	fit, dim, _ := structs.AllocsFit(node, proposed)
	if !fit {
		return false, "exhausted " + dim, nil
	}
	return true, "", nil
}

// proposedAllocs is what would run on the node after the plan: the existing
// non-terminal allocs minus those stopped, preempted or replaced by an
// in-place update, plus the placements (each alloc ID once).
func proposedAllocs(existing, stop, preempt, place []*structs.Allocation) []*structs.Allocation {
	remove := make(map[string]bool, len(stop)+len(preempt)+len(place))
	for _, list := range [][]*structs.Allocation{stop, preempt, place} {
		for _, a := range list {
			remove[a.ID] = true
		}
	}
	out := make([]*structs.Allocation, 0, len(existing)+len(place))
	for _, a := range existing {
		if !remove[a.ID] && !a.TerminalStatus() {
			out = append(out, a)
		}
	}
	added := make(map[string]bool, len(place))
	for _, a := range place {
		if !added[a.ID] {
			added[a.ID] = true
			out = append(out, a)
		}
	}
	return out
}

// rejection is one node left out of a result, for logs.
type rejection struct{ node, reason string }

// evaluatePlan decides, against snap, which nodes' parts of the plan may be
// committed. It returns the result (without AllocIndex) and the raft request
// for the committed part, nil when there is nothing to commit. A plan of an
// AllAtOnce job commits nothing unless every node fits.
func evaluatePlan(snap Snapshot, p *structs.Plan) (*structs.PlanResult, *structs.ApplyPlanResultsRequest, []rejection, error) {
	res := &structs.PlanResult{
		NodeUpdate:      map[string][]*structs.Allocation{},
		NodeAllocation:  map[string][]*structs.Allocation{},
		NodePreemptions: map[string][]*structs.Allocation{},
	}
	ids := nodeIDs(p)
	reasons := map[string]string{} // rejected nodes
	for _, id := range ids {
		ok, reason, err := evaluateNode(snap, p, id)
		if err != nil {
			return nil, nil, nil, err
		}
		if !ok {
			reasons[id] = reason
		}
	}
	structs.RejectTied(p, reasons)
	var rejected []rejection
	for _, id := range ids {
		if reason, bad := reasons[id]; bad {
			rejected = append(rejected, rejection{id, reason})
			res.RejectedNodes = append(res.RejectedNodes, id)
			continue
		}
		copyNode(res, p, id)
	}
	if len(rejected) > 0 {
		idx, err := snap.LatestIndex()
		if err != nil {
			return nil, nil, nil, fmt.Errorf("reading the latest index: %w", err)
		}
		res.RefreshIndex = max(idx, 1)
		if p.Job != nil && p.Job.AllAtOnce {
			res.NodeUpdate = map[string][]*structs.Allocation{}
			res.NodeAllocation = map[string][]*structs.Allocation{}
			res.NodePreemptions = map[string][]*structs.Allocation{}
		}
	}
	return res, request(res, p), rejected, nil
}

func copyNode(res *structs.PlanResult, p *structs.Plan, id string) {
	if as := p.NodeUpdate[id]; len(as) > 0 {
		res.NodeUpdate[id] = as
	}
	if as := p.NodeAllocation[id]; len(as) > 0 {
		res.NodeAllocation[id] = as
	}
	if as := p.NodePreemptions[id]; len(as) > 0 {
		res.NodePreemptions[id] = as
	}
}

// request builds the raft entry for the result, or nil when it is empty.
// UpdatedAt is left for the caller.
func request(res *structs.PlanResult, p *structs.Plan) *structs.ApplyPlanResultsRequest {
	req := &structs.ApplyPlanResultsRequest{Job: p.Job, EvalID: p.EvalID,
		Deployment: p.Deployment, DeploymentUpdates: p.DeploymentUpdates}
	for _, id := range sortedKeys(res.NodeAllocation) {
		req.AllocsPlaced = appendWithoutJob(req.AllocsPlaced, res.NodeAllocation[id], p.Job)
	}
	for _, id := range sortedKeys(res.NodeUpdate) {
		req.AllocsStopped = append(req.AllocsStopped, res.NodeUpdate[id]...)
	}
	for _, id := range sortedKeys(res.NodePreemptions) {
		req.AllocsPreempted = append(req.AllocsPreempted, res.NodePreemptions[id]...)
	}
	if len(req.AllocsPlaced)+len(req.AllocsStopped)+len(req.AllocsPreempted) == 0 &&
		req.Deployment == nil && len(req.DeploymentUpdates) == 0 {
		return nil
	}
	return req
}

// appendWithoutJob appends the placements to dst for the raft entry: one
// that carries the plan's job is a shallow copy without it (the state store
// sets req.Job back, upsertAllocsTxn), so the entry encodes the job once
// rather than once per allocation, and the allocations a server decodes
// from it share one job instead of holding a copy each (the C1M memory
// and raft-log wall: ~5 KB per allocation for a one-task job). The plan's
// own allocations are left as they are.
func appendWithoutJob(dst, placed []*structs.Allocation, job *structs.Job) []*structs.Allocation {
	for _, a := range placed {
		if job != nil && a.Job != nil && sameJobVersion(a.Job, job) {
			c := *a
			c.Job = nil
			a = &c
		}
		dst = append(dst, a)
	}
	return dst
}

// sameJobVersion says whether a and b are the same version of one job.
func sameJobVersion(a, b *structs.Job) bool {
	return a == b || (a.Namespace == b.Namespace && a.ID == b.ID && a.Version == b.Version &&
		a.JobModifyIndex == b.JobModifyIndex)
}

func sortedKeys(m map[string][]*structs.Allocation) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
