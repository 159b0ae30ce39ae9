package server

import (
	"path/filepath"
	"time"

	"github.com/nomadish/nomadish/server/endpoints"
	"github.com/nomadish/nomadish/structs"
)

// endpointDeps is what the RPC endpoints get of the server: its state,
// raft apply, leadership, heartbeat timers, cluster view (operator_raft.go,
// server/cluster), clock, logger and limits. The function fields read the
// server's fields at each call: raft and the advertised address are set
// after the endpoints are built.
func (s *Server) endpointDeps() endpoints.Deps {
	return endpoints.Deps{
		State:         s.State,
		Apply:         s.raftApply,
		WaitForLeader: s.waitForLeaderDuties,
		Leader:        s.Leader,
		LastContact:   s.lastContact,
		NodeServers:   s.nodeServers,
		Recover:       s.rpc.Recover,
		Shutdown:      s.shutdownCh,
		Heartbeats:    s.heartbeats,
		Cluster:       s,
		Clock:         s.cfg.Clock,
		Logger:        s.logger,
		DriverSchemas: s.cfg.DriverSchemas,
		ACL:           s.aclConfig(),
		Keyring:       s.keyring,
		ForceGC:       s.forceGC, // leader_gc.go
		Limits: endpoints.Limits{
			JobMaxCount:        s.cfg.JobMaxCount,
			JobMaxSourceSize:   s.cfg.JobMaxSourceSize,
			ClientIntroduction: s.cfg.ClientIntroduction,
			AllocUpdateBatch:   s.cfg.AllocUpdateBatch,
		},
	}
}

// nodeServers is the leader address and server list handed to clients in
// Node.Register and heartbeat replies (server/cluster RPCServers).
func (s *Server) nodeServers() (string, []*structs.NodeServerInfo) {
	return s.advertise, s.cluster.RPCServers(s.cfg.Datacenter)
}

// lastContact is how long ago this server last heard from the leader (0 on
// the leader itself), for X-Nomad-LastContact on stale reads.
func (s *Server) lastContact() time.Duration { return s.cluster.LastContact() }

// Members returns the serf view of the servers for Status.Members
// (server/cluster), with this server alone when gossip does not run.
func (s *Server) Members() *structs.ServerMembersResponse { return s.cluster.Members() }

// aclConfig is the endpoints' ACL configuration: the server's, with the
// bootstrap reset file at <data_dir>/server/acl-bootstrap-reset (as Nomad)
// unless set.
func (s *Server) aclConfig() endpoints.ACLConfig {
	c := s.cfg.ACL
	if c.BootstrapResetFile == "" && s.cfg.DataDir != "" {
		c.BootstrapResetFile = filepath.Join(s.cfg.DataDir, "server", aclBootstrapResetFile)
	}
	return c
}
