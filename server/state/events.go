package state

import (
	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// EventPublisher receives the events of every committed write (the event
// stream, server/events). Publish is called from the FSM's goroutine, after
// commit, in commit order, once per write that changed an object of a
// topic; it must not block and must not write to the store. The events and
// the objects in their payloads are owned by the store: read-only.
type EventPublisher interface {
	Publish(index uint64, events []structs.Event)
}

// SetEventPublisher sets (or with nil, clears) the event publisher. Writes
// track their changes only while one is set.
func (s *StateStore) SetEventPublisher(p EventPublisher) {
	s.notifyMu.Lock()
	s.publisher = p
	s.notifyMu.Unlock()
}

// EventPublisher returns the event publisher (nil if none).
func (s *StateStore) EventPublisher() EventPublisher {
	s.notifyMu.RLock()
	defer s.notifyMu.RUnlock()
	return s.publisher
}

// writeTxn starts a write transaction, tracking its changes (pointers to
// the objects before and after, no copies) when an event publisher is set.
func (s *StateStore) writeTxn() *memdb.Txn {
	txn := s.db.Txn(true)
	if s.EventPublisher() != nil {
		txn.TrackChanges()
	}
	return txn
}

// eventsFromChanges turns a write's tracked changes into stream events.
// kind (may be empty) is the event type of the write (TypePlanResult for a
// plan...); it overrides the table's default type for objects written (not
// for deleted ones), as Nomad's event type follows the raft message.
func eventsFromChanges(index uint64, kind string, cs memdb.Changes) []structs.Event {
	var out []structs.Event
	for i := range cs {
		c := &cs[i]
		out = appendChangeEvents(out, kind, c)
	}
	for i := range out {
		out[i].Index = index
	}
	return out
}

// pick returns kind, or def when kind is empty.
func pick(kind, def string) string {
	if kind != "" {
		return kind
	}
	return def
}

func appendChangeEvents(out []structs.Event, kind string, c *memdb.Change) []structs.Event {
	deleted := c.Deleted()
	switch c.Table {
	case tableJobs:
		if deleted {
			j := c.Before.(*structs.Job)
			return append(out, structs.Event{Topic: structs.TopicJob, Type: structs.TypeJobDeregistered,
				Key: j.ID, Namespace: j.Namespace, Payload: &structs.JobEvent{Job: j, Deleted: true}})
		}
		j := c.After.(*structs.Job)
		return append(out, structs.Event{Topic: structs.TopicJob, Type: pick(kind, structs.TypeJobRegistered),
			Key: j.ID, Namespace: j.Namespace, Payload: &structs.JobEvent{Job: j}})
	case tableEvals:
		if deleted {
			return out
		}
		e := c.After.(*structs.Evaluation)
		return append(out, structs.Event{Topic: structs.TopicEvaluation, Type: pick(kind, structs.TypeEvalUpdated),
			Key: e.ID, Namespace: e.Namespace, FilterKeys: []string{e.JobID}, Payload: &structs.EvaluationEvent{Evaluation: e}})
	case tableAllocs:
		if deleted {
			return out
		}
		a := c.After.(*structs.Allocation)
		return append(out, structs.Event{Topic: structs.TopicAllocation, Type: pick(kind, structs.TypeAllocationUpdated),
			Key: a.ID, Namespace: a.Namespace, FilterKeys: []string{a.JobID, a.DeploymentID},
			Payload: &structs.AllocationEvent{Allocation: a}})
	case tableDeployments:
		if deleted {
			return out
		}
		d := c.After.(*structs.Deployment)
		return append(out, structs.Event{Topic: structs.TopicDeployment, Type: pick(kind, structs.TypeDeploymentUpdate),
			Key: d.ID, Namespace: d.Namespace, FilterKeys: []string{d.JobID}, Payload: &structs.DeploymentEvent{Deployment: d}})
	case tableNodes:
		return appendNodeEvents(out, kind, c)
	case tableNodePools:
		typ, obj := writtenOrDeleted(c, structs.TypeNodePoolUpserted, structs.TypeNodePoolDeleted)
		p := obj.(*structs.NodePool)
		return append(out, structs.Event{Topic: structs.TopicNodePool, Type: typ, Key: p.Name, Payload: &structs.NodePoolEvent{NodePool: p}})
	case tableServiceRegistrations:
		typ, obj := writtenOrDeleted(c, structs.TypeServiceRegistration, structs.TypeServiceDeregistration)
		r := obj.(*structs.ServiceRegistration)
		return append(out, structs.Event{Topic: structs.TopicService, Type: typ, Key: r.ID, Namespace: r.Namespace,
			FilterKeys: []string{r.JobID, r.ServiceName}, Payload: &structs.ServiceRegistrationStreamEvent{Service: r}})
	case tableACLTokens:
		typ, obj := writtenOrDeleted(c, structs.TypeACLTokenUpserted, structs.TypeACLTokenDeleted)
		t := obj.(*structs.ACLToken)
		return append(out, structs.Event{Topic: structs.TopicACLToken, Type: typ, Key: t.AccessorID, Payload: &structs.ACLTokenEvent{ACLToken: t}})
	case tableACLPolicies:
		typ, obj := writtenOrDeleted(c, structs.TypeACLPolicyUpserted, structs.TypeACLPolicyDeleted)
		p := obj.(*structs.ACLPolicy)
		return append(out, structs.Event{Topic: structs.TopicACLPolicy, Type: typ, Key: p.Name, Payload: &structs.ACLPolicyEvent{ACLPolicy: p}})
	}
	return out
}

// writtenOrDeleted returns the event type and object of a change to a
// table whose writes and deletes are events of their own: up and the new
// object, or del and the deleted one.
func writtenOrDeleted(c *memdb.Change, up, del string) (string, any) {
	if c.Deleted() {
		return del, c.Before
	}
	return up, c.After
}

// appendNodeEvents names a node change: registered (or kind), deregistered,
// or, for an update, by what changed (drain, eligibility, else a status or
// event). A drain change is also sent on the NodeDrain topic.
func appendNodeEvents(out []structs.Event, kind string, c *memdb.Change) []structs.Event {
	if c.Deleted() {
		n := c.Before.(*structs.Node)
		return append(out, structs.Event{Topic: structs.TopicNode, Type: structs.TypeNodeDeregistration, Key: n.ID, Payload: &structs.NodeStreamEvent{Node: n}})
	}
	n := c.After.(*structs.Node)
	typ := kind
	drain := false
	if before, ok := c.Before.(*structs.Node); ok {
		drain = before.Drain != n.Drain || before.DrainStrategy != n.DrainStrategy
		switch {
		case typ != "":
		case drain:
			typ = structs.TypeNodeDrain
		case before.SchedulingEligibility != n.SchedulingEligibility:
			typ = structs.TypeNodeEligibilityUpdate
		default:
			typ = structs.TypeNodeEvent
		}
	}
	if typ == "" {
		typ = structs.TypeNodeRegistration
	}
	out = append(out, structs.Event{Topic: structs.TopicNode, Type: typ, Key: n.ID, Payload: &structs.NodeStreamEvent{Node: n}})
	if drain {
		out = append(out, structs.Event{Topic: structs.TopicNodeDrain, Type: structs.TypeNodeDrain, Key: n.ID, Payload: &structs.NodeStreamEvent{Node: n}})
	}
	return out
}
