package structs

import "time"

// QueryOptions are the read options of every RPC read: blocking query
// parameters, namespace, region and filters.
type QueryOptions struct {
	Region    string
	Namespace string
	// MinQueryIndex blocks the query until the state index is past it.
	MinQueryIndex uint64
	// MaxQueryTime bounds how long a blocking query waits.
	MaxQueryTime time.Duration
	// AllowStale lets a non-leader answer.
	AllowStale bool
	// Prefix filters list results by ID prefix.
	Prefix string
	// AuthToken authenticates the caller (Nomad's X-Nomad-Token field); a
	// client sends its node's SecretID here (server/endpoints/node_auth.go).
	AuthToken string
	// Filter, PerPage, NextToken and Reverse page and filter the lists
	// that support them (server/paginate): a go-bexpr expression over the
	// rows, rows per page, the first row's token, reverse order.
	Filter    string
	PerPage   int32
	NextToken string
	Reverse   bool
}

// IsRead marks requests embedding QueryOptions as reads (the RPC layer's
// forwarding rule, without reflection: promoted to every *XxxRequest).
func (q *QueryOptions) IsRead() bool { return true }

// AllowStaleRead reports whether any server may answer.
func (q *QueryOptions) AllowStaleRead() bool { return q.AllowStale }

// QueryMeta is returned with every read.
type QueryMeta struct {
	// Index is the state index the answer reflects (X-Nomad-Index).
	Index       uint64
	LastContact time.Duration
	KnownLeader bool
	// NextToken is the token of a paged list's next page, "" on the last
	// (X-Nomad-NextToken).
	NextToken string
}

// WriteRequest carries the options of every RPC write.
type WriteRequest struct {
	Region    string
	Namespace string
	// AuthToken authenticates the caller (Nomad's X-Nomad-Token field); a
	// client sends its node's SecretID here, or its introduction token when
	// it registers a new node (server/endpoints/node_auth.go).
	AuthToken string
}

// WriteMeta is returned with every write.
type WriteMeta struct {
	Index uint64
}

// GenericRequest is a request with no arguments.
type GenericRequest struct {
	QueryOptions
}

// GenericResponse answers a write with nothing else to say.
type GenericResponse struct {
	WriteMeta
}

// NodeRegisterRequest registers or re-registers a node (Node.Register).
type NodeRegisterRequest struct {
	Node *Node
	WriteRequest
}

// NodeUpdateStatusRequest is a heartbeat or status change (Node.UpdateStatus).
type NodeUpdateStatusRequest struct {
	NodeID    string
	SecretID  string
	Status    string
	UpdatedAt int64
	WriteRequest
}

// NodeUpdateResponse answers Node.Register and Node.UpdateStatus.
type NodeUpdateResponse struct {
	// HeartbeatTTL is how long the server waits for the next heartbeat.
	HeartbeatTTL    time.Duration
	EvalIDs         []string
	EvalCreateIndex uint64
	NodeModifyIndex uint64
	LeaderRPCAddr   string
	NumNodes        int32
	// Servers are the RPC advertise addresses of every server in the raft
	// configuration (Nomad's NodeUpdateResponse.Servers); clients merge
	// them into the servers they fail over between.
	Servers []*NodeServerInfo
	QueryMeta
}

// NodeServerInfo is one server a client may call.
type NodeServerInfo struct {
	// RPCAdvertiseAddr is the server's RPC host:port.
	RPCAdvertiseAddr string
	Datacenter       string
}

// NodeSpecificRequest names one node.
type NodeSpecificRequest struct {
	NodeID   string
	SecretID string
	QueryOptions
}

// SingleNodeResponse answers Node.GetNode; Node is nil when not found.
type SingleNodeResponse struct {
	Node *Node
	QueryMeta
}

// NodeListRequest lists nodes.
type NodeListRequest struct {
	// Fields adds optional fields to the rows (?resources=true), as Nomad's.
	Fields *NodeStubFields `json:",omitempty"`
	QueryOptions
}

// NodeStubFields picks the optional fields of NodeListStub.
type NodeStubFields struct {
	// Resources adds NodeResources and ReservedResources.
	Resources bool
}

// NodeListResponse answers Node.List.
type NodeListResponse struct {
	Nodes []*NodeListStub
	QueryMeta
}

// NodeClientAllocsResponse answers Node.GetClientAllocs: the IDs of the
// node's allocations with their AllocModifyIndex, so the client fetches only
// what changed (with Alloc.GetAllocs).
type NodeClientAllocsResponse struct {
	Allocs map[string]uint64
	// MigrateTokens: allocation ID -> the migrate token of its previous
	// allocation on another node (migrate_token.go), for migrating groups.
	MigrateTokens map[string]string
	QueryMeta
}

// AllocUpdateRequest carries client status reports (Node.UpdateAlloc): each
// allocation holds ID, NodeID, ClientStatus, ClientDescription and TaskStates.
type AllocUpdateRequest struct {
	Alloc []*Allocation
	// Evals are created with the update (for example to replace failed
	// allocations); the server fills them in.
	Evals []*Evaluation
	// UpdatedAt is the commit time in unix nanoseconds (set by the server).
	UpdatedAt int64
	WriteRequest
}

// AllocListRequest lists allocations.
type AllocListRequest struct {
	// Fields adds optional fields to the rows (?resources=true), as Nomad's.
	Fields *AllocStubFields `json:",omitempty"`
	QueryOptions
}

// AllocStubFields picks the optional fields of AllocListStub.
type AllocStubFields struct {
	// Resources adds AllocatedResources.
	Resources bool
}

// AllocListResponse answers Alloc.List.
type AllocListResponse struct {
	Allocations []*AllocListStub
	QueryMeta
}

// AllocSpecificRequest names one allocation.
type AllocSpecificRequest struct {
	AllocID string
	QueryOptions
}

// SingleAllocResponse answers Alloc.GetAlloc; Alloc is nil when not found.
type SingleAllocResponse struct {
	Alloc *Allocation
	QueryMeta
}

// AllocsGetRequest names several allocations.
type AllocsGetRequest struct {
	AllocIDs []string
	QueryOptions
}

// AllocsGetResponse answers Alloc.GetAllocs.
type AllocsGetResponse struct {
	Allocs []*Allocation
	QueryMeta
}

// EvalListRequest lists evaluations.
type EvalListRequest struct {
	QueryOptions
}

// EvalListResponse answers Eval.List.
type EvalListResponse struct {
	Evaluations []*Evaluation
	QueryMeta
}

// EvalSpecificRequest names one evaluation.
type EvalSpecificRequest struct {
	EvalID string
	QueryOptions
}

// SingleEvalResponse answers Eval.GetEval; Eval is nil when not found.
type SingleEvalResponse struct {
	Eval *Evaluation
	QueryMeta
}

// EvalAllocationsResponse answers Eval.Allocations.
type EvalAllocationsResponse struct {
	Allocations []*AllocListStub
	QueryMeta
}

// EvalUpdateRequest upserts evaluations (raft entry EvalUpdateRequestType).
type EvalUpdateRequest struct {
	Evals []*Evaluation
	WriteRequest
}

// ServerMember is one server in GET /v1/agent/members.
type ServerMember struct {
	Name        string
	Addr        string
	Port        uint16
	Tags        map[string]string
	Status      string
	ProtocolMin uint8
	ProtocolMax uint8
	ProtocolCur uint8
	DelegateMin uint8
	DelegateMax uint8
	DelegateCur uint8
}

// ServerMembersResponse answers Status.Members.
type ServerMembersResponse struct {
	ServerName   string
	ServerRegion string
	ServerDC     string
	Members      []*ServerMember
}

// RPC method names: the one list both sides use.
const (
	JobRegisterRPC         = "Job.Register"
	JobDeregisterRPC       = "Job.Deregister"
	JobPlanRPC             = "Job.Plan"
	JobGetJobRPC           = "Job.GetJob"
	JobListRPC             = "Job.List"
	JobAllocationsRPC      = "Job.Allocations"
	JobEvaluationsRPC      = "Job.Evaluations"
	NodeRegisterRPC        = "Node.Register"
	NodeUpdateStatusRPC    = "Node.UpdateStatus"
	NodeGetClientAllocsRPC = "Node.GetClientAllocs"
	NodeUpdateAllocRPC     = "Node.UpdateAlloc"
	NodeGetNodeRPC         = "Node.GetNode"
	NodeListRPC            = "Node.List"
	AllocListRPC           = "Alloc.List"
	AllocGetAllocRPC       = "Alloc.GetAlloc"
	AllocGetAllocsRPC      = "Alloc.GetAllocs"
	EvalListRPC            = "Eval.List"
	EvalGetEvalRPC         = "Eval.GetEval"
	EvalAllocationsRPC     = "Eval.Allocations"
	StatusLeaderRPC        = "Status.Leader"
	StatusPeersRPC         = "Status.Peers"
	StatusMembersRPC       = "Status.Members"
)
