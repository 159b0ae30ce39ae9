package server

import (
	"context"
	"net"

	"github.com/nomadish/nomadish/rpcclient"
	"github.com/nomadish/nomadish/server/endpoints"
	"github.com/nomadish/nomadish/server/nodeconn"
)

// newNodeConns builds the registry of node tunnels (server/nodeconn): a
// tunnel must carry the node's SecretID as this server's state holds it;
// nodes whose tunnel another server holds are reached through the other
// servers of the raft configuration.
func (s *Server) newNodeConns() *nodeconn.Registry {
	tlsOut := outgoingTLS(s.cfg.TLS)
	return nodeconn.New(nodeconn.Config{
		Auth: func(nodeID, secret string) error {
			node, err := s.State().NodeByID(nil, nodeID)
			if err != nil {
				return err
			}
			return endpoints.AuthenticateNode(node, secret)
		},
		Peers: s.otherServers,
		DialPeer: func(_ context.Context, addr, nodeID string) (net.Conn, error) {
			return rpcclient.DialNode(addr, tlsOut, nodeID, true)
		},
		Logger: s.logger,
	})
}

// otherServers returns the RPC addresses of the raft configuration's
// servers but this one.
func (s *Server) otherServers() []string {
	var out []string
	for _, info := range s.cluster.RPCServers(s.cfg.Datacenter) {
		if info.RPCAdvertiseAddr != s.advertise {
			out = append(out, info.RPCAdvertiseAddr)
		}
	}
	return out
}

// DialNode returns a connection to the client-only HTTP API of node
// nodeID's client, over the tunnel its client opened to this server or to
// another one. nodeconn.ErrNoPath (502) when no server holds one.
func (s *Server) DialNode(ctx context.Context, nodeID string) (net.Conn, error) {
	return s.nodeConns.Dial(ctx, nodeID)
}
