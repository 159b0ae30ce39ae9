package structs

import "encoding/json"

// Topic is an event stream topic, as Nomad names them.
type Topic string

// Topics of the event stream (GET /v1/event/stream).
const (
	TopicJob        Topic = "Job"
	TopicEvaluation Topic = "Evaluation"
	TopicAllocation Topic = "Allocation"
	TopicDeployment Topic = "Deployment"
	TopicNode       Topic = "Node"
	TopicNodeDrain  Topic = "NodeDrain"
	TopicNodePool   Topic = "NodePool"
	TopicService    Topic = "Service"
	TopicACLToken   Topic = "ACLToken"
	TopicACLPolicy  Topic = "ACLPolicy"
	TopicAll        Topic = "*"
)

// Event types, as Nomad names them.
const (
	TypeJobRegistered                 = "JobRegistered"
	TypeJobDeregistered               = "JobDeregistered"
	TypeEvalUpdated                   = "EvaluationUpdated"
	TypeAllocationUpdated             = "AllocationUpdated"
	TypeAllocationUpdateDesiredStatus = "AllocationUpdateDesiredStatus"
	TypePlanResult                    = "PlanResult"
	TypeDeploymentUpdate              = "DeploymentStatusUpdate"
	TypeDeploymentPromotion           = "DeploymentPromotion"
	TypeDeploymentAllocHealth         = "DeploymentAllocHealth"
	TypeNodeRegistration              = "NodeRegistration"
	TypeNodeDeregistration            = "NodeDeregistration"
	TypeNodeEligibilityUpdate         = "NodeEligibility"
	TypeNodeDrain                     = "NodeDrain"
	TypeNodeEvent                     = "NodeEvent"
	TypeNodePoolUpserted              = "NodePoolUpserted"
	TypeNodePoolDeleted               = "NodePoolDeleted"
	TypeServiceRegistration           = "ServiceRegistration"
	TypeServiceDeregistration         = "ServiceDeregistration"
	TypeACLTokenUpserted              = "ACLTokenUpserted"
	TypeACLTokenDeleted               = "ACLTokenDeleted"
	TypeACLPolicyUpserted             = "ACLPolicyUpserted"
	TypeACLPolicyDeleted              = "ACLPolicyDeleted"
)

// Event is one object a committed write changed, as the event stream sends
// it. Payload is one of the *XxxEvent types below; the objects in it are
// the state store's (read-only, never modified: their MarshalJSON methods
// leave out secrets through shallow copies).
type Event struct {
	Topic      Topic
	Type       string
	Key        string
	Namespace  string
	FilterKeys []string
	Index      uint64
	Payload    any
}

// Events is one frame of the stream: the events of one raft index.
type Events struct {
	Index  uint64
	Events []Event
}

// JobEvent is the payload of Job events; Deleted is set when the job was
// purged (api.Event.DeregisteredJob).
type JobEvent struct {
	Job     *Job
	Deleted bool `json:",omitempty"`
}

// EvaluationEvent is the payload of Evaluation events.
type EvaluationEvent struct{ Evaluation *Evaluation }

// AllocationEvent is the payload of Allocation events. Its JSON leaves out
// the allocation's Job, as Nomad's does (the Job topic carries jobs).
type AllocationEvent struct{ Allocation *Allocation }

// MarshalJSON encodes a shallow copy of the allocation without its job.
func (e *AllocationEvent) MarshalJSON() ([]byte, error) {
	var out struct{ Allocation *Allocation }
	if e.Allocation != nil {
		cp := *e.Allocation
		cp.Job = nil
		out.Allocation = &cp
	}
	return json.Marshal(out)
}

// DeploymentEvent is the payload of Deployment events.
type DeploymentEvent struct{ Deployment *Deployment }

// NodeStreamEvent is the payload of Node and NodeDrain events. Its JSON
// carries the sanitized node (no SecretID).
type NodeStreamEvent struct{ Node *Node }

// MarshalJSON encodes the node without its secret.
func (e *NodeStreamEvent) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct{ Node *Node }{e.Node.Sanitized()})
}

// NodePoolEvent is the payload of NodePool events.
type NodePoolEvent struct{ NodePool *NodePool }

// ServiceRegistrationStreamEvent is the payload of Service events.
type ServiceRegistrationStreamEvent struct{ Service *ServiceRegistration }

// ACLTokenEvent is the payload of ACLToken events. Its JSON never carries
// the token's SecretID.
type ACLTokenEvent struct{ ACLToken *ACLToken }

// MarshalJSON encodes a shallow copy of the token without its secret.
func (e *ACLTokenEvent) MarshalJSON() ([]byte, error) {
	var out struct{ ACLToken *ACLToken }
	if e.ACLToken != nil {
		cp := *e.ACLToken
		cp.SecretID = ""
		out.ACLToken = &cp
	}
	return json.Marshal(out)
}

// ACLPolicyEvent is the payload of ACLPolicy events.
type ACLPolicyEvent struct{ ACLPolicy *ACLPolicy }
