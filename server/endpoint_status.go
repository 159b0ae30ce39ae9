package server

import (
	"fmt"
	"net"
	"strconv"

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
	f := e.s.raft.GetConfiguration()
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

// Members returns the server members (this server only until issue 6).
func (e *statusEndpoint) Members(args *structs.GenericRequest, reply *structs.ServerMembersResponse) error {
	cfg := e.s.cfg
	host, portStr, err := net.SplitHostPort(e.s.advertise)
	if err != nil {
		host = e.s.advertise
	}
	port, _ := strconv.Atoi(portStr)
	status := "alive"
	reply.ServerName, reply.ServerRegion, reply.ServerDC = cfg.NodeName, cfg.Region, cfg.Datacenter
	reply.Members = []*structs.ServerMember{{
		Name: cfg.NodeName + "." + cfg.Region, Addr: host, Port: uint16(port), Status: status,
		Tags: map[string]string{
			"role": "nomad", "region": cfg.Region, "dc": cfg.Datacenter, "port": portStr,
			"bootstrap": "1", "expect": "1", "leader": strconv.FormatBool(e.s.IsLeader()),
		},
		ProtocolMin: 1, ProtocolMax: 3, ProtocolCur: 2, DelegateMin: 2, DelegateMax: 5, DelegateCur: 4,
	}}
	return nil
}
