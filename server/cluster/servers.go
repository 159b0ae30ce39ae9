package cluster

import (
	"github.com/hashicorp/raft"

	"github.com/nomadish/nomadish/structs"
)

// raftConfigurer is the part of *raft.Raft the server list is read from:
// every server of the raft configuration, voter or not, at its raft
// address, which is its RPC advertise address (raft and RPC share a port).
type raftConfigurer interface {
	GetConfiguration() raft.ConfigurationFuture
}

// RPCServers lists the servers a client may call, for heartbeat and
// register replies: every server of the raft configuration, voter or not,
// in its order, or only this server when the configuration cannot be read.
// The caller owns the returned slice.
func (c *Cluster) RPCServers(datacenter string) []*structs.NodeServerInfo {
	var rc raftConfigurer
	if c.raft != nil {
		rc = c.raft
	}
	return rpcServers(rc, c.cfg.Advertise, datacenter)
}

// rpcServers lists the servers a client may call, for heartbeat and
// register replies: the servers of rc's latest configuration in its order,
// or only self when the configuration cannot be read (raft not started, or
// a dev server without a TCP listener: then self is "" and the list is
// empty). The caller owns the returned slice.
func rpcServers(rc raftConfigurer, self, datacenter string) []*structs.NodeServerInfo {
	var addrs []string
	if rc != nil {
		if f := rc.GetConfiguration(); f.Error() == nil {
			for _, srv := range f.Configuration().Servers {
				addrs = append(addrs, string(srv.Address))
			}
		}
	}
	if len(addrs) == 0 {
		addrs = []string{self}
	}
	out := make([]*structs.NodeServerInfo, 0, len(addrs))
	for _, a := range addrs {
		if a == "" {
			continue
		}
		// The datacenter of other servers is not in the raft
		// configuration; serf membership (issue 6, part A) knows it.
		out = append(out, &structs.NodeServerInfo{RPCAdvertiseAddr: a, Datacenter: datacenter})
	}
	return out
}
