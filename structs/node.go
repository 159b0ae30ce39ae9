package structs

import "time"

// Node statuses.
const (
	NodeStatusInit         = "initializing"
	NodeStatusReady        = "ready"
	NodeStatusDown         = "down"
	NodeStatusDisconnected = "disconnected"
)

// Node scheduling eligibility.
const (
	NodeSchedulingEligible   = "eligible"
	NodeSchedulingIneligible = "ineligible"
)

// DefaultHeartbeatTTL bounds for the TTL the server hands to clients.
const (
	MinHeartbeatTTL = 10 * time.Second
)

// Node is a client machine that runs allocations.
type Node struct {
	ID                    string
	SecretID              string // the HTTP layer blanks it
	Datacenter            string
	Name                  string
	HTTPAddr              string
	NodeClass             string
	NodePool              string
	Attributes            map[string]string
	Meta                  map[string]string
	NodeResources         *NodeResources
	ReservedResources     *NodeReservedResources
	Drivers               map[string]*DriverInfo
	Status                string
	StatusDescription     string
	StatusUpdatedAt       int64
	SchedulingEligibility string
	Drain                 bool
	DrainStrategy         *DrainStrategy // nil unless draining; Drain mirrors it
	Events                []*NodeEvent
	ComputedClass         string
	HostVolumes           map[string]*ClientHostVolumeConfig // volumes.go

	CreateIndex uint64
	ModifyIndex uint64
}

// DriverInfo is a driver's fingerprint on a node.
type DriverInfo struct {
	Attributes        map[string]string
	Detected          bool
	Healthy           bool
	HealthDescription string
	UpdateTime        time.Time
}

// NodeEvent is a notable change in a node's life.
type NodeEvent struct {
	Message     string
	Subsystem   string
	Details     map[string]string
	Timestamp   time.Time
	CreateIndex uint64
}

// Ready reports whether the node may receive new allocations.
func (n *Node) Ready() bool {
	return n.Status == NodeStatusReady && !n.Drain && n.SchedulingEligibility != NodeSchedulingIneligible
}

// TerminalStatus reports whether the node is down.
func (n *Node) TerminalStatus() bool { return n.Status == NodeStatusDown }

// Copy returns a deep copy of the node.
func (n *Node) Copy() *Node {
	if n == nil {
		return nil
	}
	var out Node
	CopyVia(n, &out)
	return &out
}

// NodeListStub is the row of GET /v1/nodes.
type NodeListStub struct {
	Address               string
	ID                    string
	Attributes            map[string]string `json:",omitempty"`
	Datacenter            string
	Name                  string
	NodeClass             string
	NodePool              string
	Version               string
	Drain                 bool
	SchedulingEligibility string
	Status                string
	StatusDescription     string
	Drivers               map[string]*DriverInfo
	// NodeResources and ReservedResources are set only when the list asks
	// for them (NodeStubFields.Resources; GET /v1/nodes?resources=true).
	NodeResources     *NodeResources         `json:",omitempty"`
	ReservedResources *NodeReservedResources `json:",omitempty"`
	CreateIndex       uint64
	ModifyIndex       uint64
}

// Stub returns the list row of the node.
func (n *Node) Stub() *NodeListStub {
	return &NodeListStub{
		Address: n.Attributes["unique.network.ip-address"], ID: n.ID, Datacenter: n.Datacenter,
		Name: n.Name, NodeClass: n.NodeClass, NodePool: n.NodePool, Version: n.Attributes["nomad.version"],
		Drain: n.Drain, SchedulingEligibility: n.SchedulingEligibility, Status: n.Status,
		StatusDescription: n.StatusDescription, Drivers: n.Drivers,
		CreateIndex: n.CreateIndex, ModifyIndex: n.ModifyIndex,
	}
}
