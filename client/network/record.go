package network

import (
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// Record is what the client keeps (in its state db) about an allocation's
// network, so a restarted client reuses it and a stopped one tears it down
// exactly: the namespace, who made it, and the conflist and port mappings
// CNI ADD ran with (DEL runs with the same, whatever the config says now).
type Record struct {
	AllocID string
	Mode    string // bridge, none or cni/<name>
	// NSPath is the namespace file; Driver the name of the driver that
	// created it through base.NetworkManager ("": the client's own, under
	// NetnsDir); Labels that driver's notes.
	NSPath string
	Driver string            `json:",omitempty"`
	Labels map[string]string `json:",omitempty"`
	// ConfList is the conflist's JSON; Ports the portMappings passed.
	ConfList []byte
	Ports    []PortMapping
	// Added is set once CNI ADD succeeded; Status is its result.
	Added  bool
	Status *structs.AllocNetworkStatus
	// HostsPath and ResolvConfPath are files written for the group
	// (hostname, dns block); empty when it has neither.
	HostsPath, ResolvConfPath string
}

// Isolation is what every task of the allocation gets as
// base.TaskConfig.Network.
func (r *Record) Isolation() *base.NetworkIsolation {
	if r == nil || r.NSPath == "" {
		return nil
	}
	return &base.NetworkIsolation{Path: r.NSPath, Labels: r.Labels, HostsPath: r.HostsPath, ResolvConfPath: r.ResolvConfPath}
}
