package server

import (
	"fmt"

	"github.com/nomadish/nomadish/structs"
)

// statusEndpoint serves the Status.* RPCs.
type statusEndpoint struct{ s *Server }

// Leader returns the leader's RPC address ("" when there is none).
func (e *statusEndpoint) Leader(args *structs.GenericRequest, reply *string) error {
	*reply = e.s.Leader()
	return nil
}

// Peers returns the raft peers' addresses.
func (e *statusEndpoint) Peers(args *structs.GenericRequest, reply *[]string) error {
	f := e.s.cluster.Raft().GetConfiguration()
	if err := f.Error(); err != nil {
		return fmt.Errorf("reading raft configuration: %w", err)
	}
	out := []string{}
	for _, srv := range f.Configuration().Servers {
		out = append(out, string(srv.Address))
	}
	*reply = out
	return nil
}

// Members returns the servers serf knows (this server alone without
// gossip); see Server.Members.
func (e *statusEndpoint) Members(args *structs.GenericRequest, reply *structs.ServerMembersResponse) error {
	*reply = *e.s.cluster.Members()
	return nil
}
