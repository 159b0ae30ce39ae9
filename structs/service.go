package structs

import "time"

// Service providers: nomadish has no Consul; its own catalog serves a
// "consul" service exactly like a "nomad" one (the jobspec warns once).
const (
	ServiceProviderNomad  = "nomad"
	ServiceProviderConsul = "consul"
)

// Address modes of a service or check (Nomad's strings).
const (
	AddressModeAuto   = "auto"
	AddressModeHost   = "host"
	AddressModeAlloc  = "alloc"
	AddressModeDriver = "driver"
)

// Check types.
const (
	ServiceCheckHTTP   = "http"
	ServiceCheckTCP    = "tcp"
	ServiceCheckScript = "script"
	ServiceCheckGRPC   = "grpc"
)

// Check statuses (Nomad's strings): what a check reports, and what
// initial_status may name.
const (
	CheckPassing  = "passing"
	CheckWarning  = "warning"
	CheckCritical = "critical"
	CheckPending  = "pending"
)

// on_update values of a service or check: whether a failing check counts
// against a deployment's health.
const (
	OnUpdateRequireHealthy = "require_healthy"
	OnUpdateIgnoreWarn     = "ignore_warnings"
	OnUpdateIgnore         = "ignore"
)

// Service is a `service` block of a group or a task (Nomad's JSON shape).
type Service struct {
	Name              string
	TaskName          string // the task a group service's checks run in (script checks)
	PortLabel         string // a port label of the group's network, or a number
	AddressMode       string
	Address           string
	EnableTagOverride bool
	Tags              []string
	CanaryTags        []string
	Checks            []*ServiceCheck
	// CheckRestart is the service's check_restart block (Nomad's API
	// field): Canonicalize merges it into each check, whose own wins.
	CheckRestart *CheckRestart `json:",omitempty"`
	// Connect is Consul Connect's block, kept as decoded: nomadish has no
	// mesh (jobspec warns, jobcheck refuses what cannot run without it).
	Connect    map[string]any `json:",omitempty"`
	Meta       map[string]string
	CanaryMeta map[string]string
	Namespace  string
	OnUpdate   string
	Provider   string
	Cluster    string `json:",omitempty"`
}

// ServiceCheck is a `check` block of a service.
type ServiceCheck struct {
	Name                   string
	Type                   string
	Command                string
	Args                   []string
	Path                   string
	Protocol               string
	PortLabel              string
	Expose                 bool
	AddressMode            string
	Interval               time.Duration
	Timeout                time.Duration
	InitialStatus          string
	TLSServerName          string `json:",omitempty"`
	TLSSkipVerify          bool
	Method                 string
	Header                 map[string][]string
	CheckRestart           *CheckRestart
	GRPCService            string
	GRPCUseTLS             bool
	TaskName               string
	SuccessBeforePassing   int
	FailuresBeforeCritical int
	FailuresBeforeWarning  int
	Body                   string
	OnUpdate               string
}

// CheckRestart restarts a task whose check stays unhealthy: after Limit
// consecutive failures, not within Grace of the task's (re)start.
type CheckRestart struct {
	Limit          int
	Grace          time.Duration
	IgnoreWarnings bool
}

// ServiceRegistration is one live instance of a service, stored by the
// servers (Nomad's JSON shape: /v1/service/:name).
type ServiceRegistration struct {
	ID          string // _nomad-task-<alloc>-<group|task>-<service>-<port>
	ServiceName string
	Namespace   string
	NodeID      string
	Datacenter  string
	JobID       string
	AllocID     string
	Tags        []string
	Address     string
	Port        int
	CreateIndex uint64
	ModifyIndex uint64
}

// ServiceRegistrationStub is one service name in a /v1/services answer.
type ServiceRegistrationStub struct {
	ServiceName string
	Tags        []string
}

// ServiceRegistrationListStub is one namespace's services in /v1/services.
type ServiceRegistrationListStub struct {
	Namespace string
	Services  []*ServiceRegistrationStub
}

// RPC methods of the service registrations.
const (
	ServiceRegistrationUpsertRPC       = "ServiceRegistration.Upsert"
	ServiceRegistrationDeleteByIDRPC   = "ServiceRegistration.DeleteByID"
	ServiceRegistrationListRPC         = "ServiceRegistration.List"
	ServiceRegistrationGetServiceRPC   = "ServiceRegistration.GetService"
	ServiceRegistrationDeleteByAllocID = "ServiceRegistration.DeleteByAllocIDs"
)

// ServiceRegistrationUpsertRequest registers services; a client sends it
// with its node's secret, for allocations on that node only.
type ServiceRegistrationUpsertRequest struct {
	Services []*ServiceRegistration
	WriteRequest
}

// ServiceRegistrationUpsertResponse answers an upsert.
type ServiceRegistrationUpsertResponse struct {
	WriteMeta
}

// ServiceRegistrationDelByIDRequest deletes one registration (the CLI's
// `service delete`, a client deregistering one service).
type ServiceRegistrationDelByIDRequest struct {
	ID string
	WriteRequest
}

// ServiceRegistrationDelByAllocIDsRequest deletes every registration of
// the allocations (a client whose allocations stopped).
type ServiceRegistrationDelByAllocIDsRequest struct {
	AllocIDs []string
	WriteRequest
}

// ServiceRegistrationDelResponse answers a delete.
type ServiceRegistrationDelResponse struct {
	WriteMeta
}

// ServiceRegistrationListRequest lists service names (Namespace "*": all).
type ServiceRegistrationListRequest struct {
	QueryOptions
}

// ServiceRegistrationListResponse answers a list.
type ServiceRegistrationListResponse struct {
	Services []*ServiceRegistrationListStub
	QueryMeta
}

// ServiceRegistrationByNameRequest reads one service's registrations.
type ServiceRegistrationByNameRequest struct {
	ServiceName string
	// Choose is Nomad's `choose=<n>|<key>`: n registrations picked by
	// rendezvous hashing on key ("" : all).
	Choose string
	QueryOptions
}

// ServiceRegistrationByNameResponse answers a read.
type ServiceRegistrationByNameResponse struct {
	Services []*ServiceRegistration
	QueryMeta
}

// CheckQueryResult is one check's latest result, as the client reports it
// (/v1/client/allocation/:id/checks, keyed by check ID).
type CheckQueryResult struct {
	ID         string
	Mode       string // "healthiness" or "readiness"
	Status     string // passing | warning | critical | pending
	StatusCode int    `json:",omitempty"`
	Output     string
	Timestamp  int64 // unix seconds
	Group      string
	Task       string `json:",omitempty"`
	Service    string
	Check      string
}
