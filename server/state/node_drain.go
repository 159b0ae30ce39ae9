package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// maxNodeEvents is how many events a node keeps (Nomad keeps 10).
const maxNodeEvents = 10

// UpdateNodeDrain starts, changes or (strategy nil) cancels a node's drain
// at index. A drain makes the node ineligible; cancelling it with
// markEligible makes it eligible again. event (nil ok) is appended to the
// node's events. updatedAt is unix nanoseconds.
func (s *StateStore) UpdateNodeDrain(index uint64, nodeID string, strategy *structs.DrainStrategy, markEligible bool, event *structs.NodeEvent, updatedAt int64) error {
	txn := s.writeTxn()
	defer txn.Abort()
	node, err := nodeForUpdate(txn, nodeID)
	if err != nil {
		return err
	}
	node.DrainStrategy = strategy.Copy()
	node.Drain = strategy != nil
	switch {
	case strategy != nil:
		node.SchedulingEligibility = structs.NodeSchedulingIneligible
	case markEligible:
		node.SchedulingEligibility = structs.NodeSchedulingEligible
	}
	return s.finishNodeUpdate(txn, index, node, event, updatedAt)
}

// UpdateNodeEligibility sets a node's scheduling eligibility at index. A
// draining node cannot be made eligible.
func (s *StateStore) UpdateNodeEligibility(index uint64, nodeID, eligibility string, event *structs.NodeEvent, updatedAt int64) error {
	txn := s.writeTxn()
	defer txn.Abort()
	node, err := nodeForUpdate(txn, nodeID)
	if err != nil {
		return err
	}
	if node.DrainStrategy != nil && eligibility == structs.NodeSchedulingEligible {
		return fmt.Errorf("node %q is draining: %w", nodeID, structs.NewCodedError(structs.ErrCodeBadRequest, "can not set node's scheduling eligibility to eligible while it is draining"))
	}
	node.SchedulingEligibility = eligibility
	return s.finishNodeUpdate(txn, index, node, event, updatedAt)
}

// nodeForUpdate returns a shallow copy of the stored node to change.
func nodeForUpdate(txn *memdb.Txn, nodeID string) (*structs.Node, error) {
	raw, err := txn.First(tableNodes, "id", nodeID)
	if err != nil {
		return nil, fmt.Errorf("looking up node %q: %w", nodeID, err)
	}
	if raw == nil {
		return nil, fmt.Errorf("updating node %q: %w", nodeID, structs.ErrNodeNotFound)
	}
	cp := *raw.(*structs.Node) // shallow: top-level fields and Events are replaced
	return &cp, nil
}

func (s *StateStore) finishNodeUpdate(txn *memdb.Txn, index uint64, node *structs.Node, event *structs.NodeEvent, updatedAt int64) error {
	if event != nil {
		ev := *event
		ev.CreateIndex = index
		events := append([]*structs.NodeEvent(nil), node.Events...)
		events = append(events, &ev)
		if len(events) > maxNodeEvents {
			events = events[len(events)-maxNodeEvents:]
		}
		node.Events = events
	}
	if updatedAt != 0 {
		node.StatusUpdatedAt = updatedAt
	}
	node.ModifyIndex = index
	if err := txn.Insert(tableNodes, node); err != nil {
		return fmt.Errorf("updating node %q: %w", node.ID, err)
	}
	if err := setIndex(txn, tableNodes, index); err != nil {
		return err
	}
	return s.commit(txn, index, (&changes{}).capacityIf(node.Ready(), node))
}

// keepServerNodeFields carries the fields the servers own (drain,
// eligibility, events) over a client's re-registration.
func keepServerNodeFields(node, existing *structs.Node) {
	node.DrainStrategy = existing.DrainStrategy
	node.Drain = existing.Drain
	node.Events = existing.Events
	if existing.SchedulingEligibility != "" {
		node.SchedulingEligibility = existing.SchedulingEligibility
	}
}

// UpdateAllocsDesiredTransitions sets the desired transitions of allocations
// and writes evals (for their jobs) at index. Unknown allocations are
// ignored. AllocModifyIndex is left alone: clients need not refetch.
func (s *StateStore) UpdateAllocsDesiredTransitions(index uint64, transitions map[string]*structs.DesiredTransition, evals []*structs.Evaluation) error {
	txn := s.writeTxn()
	defer txn.Abort()
	c := &changes{event: structs.TypeAllocationUpdateDesiredStatus}
	for id, t := range transitions {
		raw, err := txn.First(tableAllocs, "id", id)
		if err != nil {
			return fmt.Errorf("looking up alloc %q: %w", id, err)
		}
		if raw == nil || t == nil {
			continue
		}
		old := raw.(*structs.Allocation)
		cp := *old // shallow: only DesiredTransition changes
		a := &cp
		if t.Migrate != nil {
			m := *t.Migrate
			a.DesiredTransition.Migrate = &m
		}
		if t.ForceReschedule != nil {
			f := *t.ForceReschedule
			a.DesiredTransition.ForceReschedule = &f
		}
		a.ModifyIndex = index
		if err := putAllocTxn(txn, old, a); err != nil {
			return err
		}
	}
	if err := setIndex(txn, tableAllocs, index); err != nil {
		return err
	}
	if err := upsertEvalsTxn(txn, index, evals, c); err != nil {
		return err
	}
	return s.commit(txn, index, c)
}
