package endpoints

import (
	"fmt"

	"github.com/nomadish/nomadish/structs"
)

// Status serves the Status.* RPCs.
type Status struct{ d *Deps }

// Leader returns the leader's RPC address ("" when there is none).
func (e *Status) Leader(args *structs.GenericRequest, reply *string) error {
	*reply = e.d.Leader()
	return nil
}

// Peers returns the raft peers' addresses.
func (e *Status) Peers(args *structs.GenericRequest, reply *[]string) error {
	servers, _, err := e.d.Cluster.RaftServers()
	if err != nil {
		return fmt.Errorf("reading raft configuration: %w", err)
	}
	out := []string{}
	for _, srv := range servers {
		out = append(out, srv.Address)
	}
	*reply = out
	return nil
}

// Members returns the servers serf knows (this server alone without
// gossip).
func (e *Status) Members(args *structs.GenericRequest, reply *structs.ServerMembersResponse) error {
	*reply = *e.d.Cluster.Members()
	return nil
}
