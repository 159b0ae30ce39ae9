package schedulertest

import (
	"slices"
	"sort"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/structs"
)

// SubmitPlan applies the plan the way the plan applier does: node by node,
// each node's part is committed only if the node exists, is ready (for
// placements) and its allocations still fit (structs.AllocsFit); for an
// AllAtOnce job any rejection rejects everything. A partial commit sets
// RefreshIndex and returns the store itself as the new state.
func (s *Store) SubmitPlan(plan *structs.Plan) (*structs.PlanResult, scheduler.State, error) {
	if s.BeforeSubmit != nil {
		s.BeforeSubmit(s, plan)
	}
	s.Plans = append(s.Plans, plan)
	result := &structs.PlanResult{
		NodeUpdate: map[string][]*structs.Allocation{}, NodeAllocation: map[string][]*structs.Allocation{},
		NodePreemptions: map[string][]*structs.Allocation{},
	}
	var accepted []string
	bad := map[string]string{}
	for _, id := range planNodes(plan) {
		if !s.nodeFits(plan, id) || (s.RejectNode != nil && s.RejectNode(id)) {
			bad[id] = "rejected"
		}
	}
	structs.RejectTied(plan, bad) // as the plan applier does
	for _, id := range planNodes(plan) {
		if _, rejected := bad[id]; rejected {
			result.RejectedNodes = append(result.RejectedNodes, id)
		} else {
			accepted = append(accepted, id)
		}
	}
	if len(result.RejectedNodes) > 0 && plan.Job != nil && plan.Job.AllAtOnce {
		result.RejectedNodes = append(result.RejectedNodes, accepted...)
		accepted = nil
	}
	idx := s.bump()
	for _, id := range accepted {
		for _, m := range []struct {
			in, out map[string][]*structs.Allocation
		}{
			{plan.NodeUpdate, result.NodeUpdate}, {plan.NodePreemptions, result.NodePreemptions},
			{plan.NodeAllocation, result.NodeAllocation},
		} {
			if as := m.in[id]; len(as) > 0 {
				m.out[id] = as
				for _, a := range as {
					s.putAlloc(a, idx)
				}
			}
		}
	}
	var placed []*structs.Allocation
	for _, as := range result.NodeAllocation {
		placed = append(placed, as...)
	}
	s.applyPlanDeployments(plan, placed, idx)
	// As the plan applier does: jobs that lost allocs get an eval.
	var preempted []*structs.Allocation
	for _, id := range accepted {
		preempted = append(preempted, result.NodePreemptions[id]...)
	}
	for _, e := range structs.PreemptionEvals(preempted, 0) {
		s.UpsertEval(e)
	}
	result.AllocIndex = idx
	s.Results = append(s.Results, result)
	if len(result.RejectedNodes) > 0 {
		result.RefreshIndex = idx
		return result, s, nil
	}
	return result, nil, nil
}

func planNodes(plan *structs.Plan) []string {
	set := map[string]bool{}
	for _, m := range []map[string][]*structs.Allocation{plan.NodeUpdate, plan.NodeAllocation, plan.NodePreemptions} {
		for id := range m {
			set[id] = true
		}
	}
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// nodeFits reports whether the node can take its part of the plan.
func (s *Store) nodeFits(plan *structs.Plan, nodeID string) bool {
	placed := plan.NodeAllocation[nodeID]
	if !slices.ContainsFunc(placed, func(a *structs.Allocation) bool { return !a.TerminalStatus() }) {
		return true // stopping, or updating finished allocs in place, always fits
	}
	node := s.nodes[nodeID]
	if node == nil || !node.Ready() {
		return false
	}
	remove := map[string]bool{}
	for _, m := range []map[string][]*structs.Allocation{plan.NodeUpdate, plan.NodePreemptions, plan.NodeAllocation} {
		for _, a := range m[nodeID] {
			remove[a.ID] = true
		}
	}
	var proposed []*structs.Allocation
	for id := range s.byNode[nodeID] {
		if !remove[id] {
			proposed = append(proposed, s.allocs[id])
		}
	}
	fit, _, _ := structs.AllocsFit(node, append(proposed, placed...))
	return fit
}

// UpdateEval upserts the eval.
func (s *Store) UpdateEval(e *structs.Evaluation) error { s.UpsertEval(e); return nil }

// CreateEval upserts the eval.
func (s *Store) CreateEval(e *structs.Evaluation) error { s.UpsertEval(e); return nil }

// ReblockEval upserts the eval and records it in Reblocked.
func (s *Store) ReblockEval(e *structs.Evaluation) error {
	s.Reblocked = append(s.Reblocked, e)
	s.UpsertEval(e)
	return nil
}
