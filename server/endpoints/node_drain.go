package endpoints

import (
	"github.com/nomadish/nomadish/acl"
	"github.com/nomadish/nomadish/structs"
)

// UpdateDrain starts, changes or (DrainStrategy nil) cancels a node's drain.
// The leader's drainer does the migrating; this only records the strategy
// (with StartedAt and ForceDeadline filled from the spec) and a node event.
// Cancelling with MarkEligible makes the node eligible again.
func (e *Node) UpdateDrain(args *structs.NodeUpdateDrainRequest, reply *structs.NodeDrainUpdateResponse) error {
	if err := e.d.allowLevel(args.AuthToken, "node write", (*acl.ACL).AllowNodeWrite); err != nil {
		return err
	}
	if args.NodeID == "" {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "missing node ID")
	}
	node, err := e.d.State().NodeByID(nil, args.NodeID)
	if err != nil {
		return err
	}
	if node == nil {
		return structs.ErrNodeNotFound
	}
	now := e.d.Clock.Now()
	req := &structs.NodeUpdateDrainRequest{NodeID: node.ID, MarkEligible: args.MarkEligible, UpdatedAt: now.UnixNano()}
	ev := &structs.NodeEvent{Subsystem: structs.NodeEventSubsystemDrain, Timestamp: now, Details: args.Meta}
	switch {
	case args.DrainStrategy == nil:
		ev.Message = structs.NodeEventDrainDisabled
	case node.DrainStrategy != nil:
		ev.Message = structs.NodeEventDrainStrategyUpdated
		req.DrainStrategy = structs.NewDrainStrategy(args.DrainStrategy.DrainSpec, node.DrainStrategy.StartedAt)
		if args.DrainStrategy.Deadline > 0 {
			req.DrainStrategy.ForceDeadline = now.Add(args.DrainStrategy.Deadline)
		}
	default:
		ev.Message = structs.NodeEventDrainStrategySet
		req.DrainStrategy = structs.NewDrainStrategy(args.DrainStrategy.DrainSpec, now)
	}
	req.NodeEvent = ev
	index, _, err := e.d.Apply(structs.NodeUpdateDrainRequestType, req)
	if err != nil {
		return err
	}
	reply.NodeModifyIndex, reply.Index = index, index
	if args.DrainStrategy == nil && args.MarkEligible {
		return e.evalsForEligible(node.ID, index, reply)
	}
	return nil
}

// UpdateEligibility marks a node eligible or ineligible for new
// allocations. A draining node cannot be made eligible.
func (e *Node) UpdateEligibility(args *structs.NodeUpdateEligibilityRequest, reply *structs.NodeDrainUpdateResponse) error {
	if err := e.d.allowLevel(args.AuthToken, "node write", (*acl.ACL).AllowNodeWrite); err != nil {
		return err
	}
	if args.NodeID == "" {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "missing node ID")
	}
	var msg string
	switch args.Eligibility {
	case structs.NodeSchedulingEligible:
		msg = structs.NodeEventEligible
	case structs.NodeSchedulingIneligible:
		msg = structs.NodeEventIneligible
	default:
		return structs.NewCodedError(structs.ErrCodeBadRequest, "invalid scheduling eligibility %q", args.Eligibility)
	}
	node, err := e.d.State().NodeByID(nil, args.NodeID)
	if err != nil {
		return err
	}
	if node == nil {
		return structs.ErrNodeNotFound
	}
	if node.DrainStrategy != nil && args.Eligibility == structs.NodeSchedulingEligible {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "can not set node's scheduling eligibility to eligible while it is draining")
	}
	now := e.d.Clock.Now()
	req := &structs.NodeUpdateEligibilityRequest{
		NodeID: node.ID, Eligibility: args.Eligibility, UpdatedAt: now.UnixNano(),
		NodeEvent: &structs.NodeEvent{Message: msg, Subsystem: structs.NodeEventSubsystemCluster, Timestamp: now},
	}
	index, _, err := e.d.Apply(structs.NodeUpdateEligibilityRequestType, req)
	if err != nil {
		return err
	}
	reply.NodeModifyIndex, reply.Index = index, index
	if args.Eligibility == structs.NodeSchedulingEligible && node.SchedulingEligibility != structs.NodeSchedulingEligible {
		return e.evalsForEligible(node.ID, index, reply)
	}
	return nil
}

// evalsForEligible creates node-update evals for the jobs on a node that
// became eligible (blocked evals are unblocked by the capacity event).
func (e *Node) evalsForEligible(nodeID string, index uint64, reply *structs.NodeDrainUpdateResponse) error {
	ids, evalIndex, err := e.d.createNodeEvals(nodeID, index)
	if err != nil {
		return err
	}
	reply.EvalIDs, reply.EvalCreateIndex = ids, evalIndex
	return nil
}
