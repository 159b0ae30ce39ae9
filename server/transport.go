package server

import (
	"crypto/tls"
	"fmt"
	"net"

	"github.com/nomadish/nomadish/internal/tlsutil"
	"github.com/nomadish/nomadish/server/cluster"
	"github.com/nomadish/nomadish/server/endpoints"
	"github.com/nomadish/nomadish/server/rpcserver"
)

// RPCTLSConfig is the TLS setup of the RPC port (Config.TLS): Incoming for the
// listener, Outgoing for raft (and RPC) dials to other servers. Build it
// with tlsutil.NewRPC; nil means plaintext.
type RPCTLSConfig = tlsutil.RPC

// RPCLimits bounds connections on the RPC port (Config.RPCLimits; the
// agent's limits block, rpc_* keys). The zero value sets no bound.
type RPCLimits = rpcserver.Limits

// setupTransport opens the RPC port (if any), settles the advertised
// address, builds the RPC transport (server/rpcserver) over it and
// registers the endpoints with it. Nothing is accepted until s.rpc.Serve.
func (s *Server) setupTransport() error {
	ln, err := s.setupListener()
	if err != nil {
		return err
	}
	var raftLayer rpcserver.RaftHandoff
	if s.raftLayer != nil {
		raftLayer = s.raftLayer
	}
	s.rpc = rpcserver.New(rpcserver.Config{
		Listener: ln, Advertise: s.advertise, Leadership: s, HoldTimeout: s.holdTimeout,
		Raft: raftLayer, NodeTunnels: s.nodeConns, TLS: s.cfg.TLS, Limits: s.cfg.RPCLimits,
		Logger: s.logger, Shutdown: s.shutdownCh,
		ServeHTTP: s.serveHTTPConn, // events_stream.go
	})
	if err := s.registerEndpoints(); err != nil {
		s.rpc.StopAccepting()
		return err
	}
	return nil
}

// registerEndpoints builds the endpoints (server/endpoints) over the
// server's narrow dependencies and registers each with the transport.
func (s *Server) registerEndpoints() error {
	set, err := endpoints.New(s.endpointDeps())
	if err != nil {
		return err
	}
	s.endpoints = set
	for _, e := range set.Endpoints {
		if err := s.rpc.Register(e.Name, e.Receiver); err != nil {
			return err
		}
	}
	return nil
}

// setupListener opens the RPC port (nil without RPCAddr), settles the
// advertised address and makes raft's stream layer over the port.
func (s *Server) setupListener() (net.Listener, error) {
	if s.cfg.RPCAddr == "" {
		s.advertise = s.cfg.RPCAdvertise
		if s.advertise == "" {
			s.advertise = "127.0.0.1:4647"
		}
		return nil, nil
	}
	ln, err := net.Listen("tcp", s.cfg.RPCAddr)
	if err != nil {
		return nil, fmt.Errorf("listening for RPC on %s: %w", s.cfg.RPCAddr, err)
	}
	s.advertise = s.cfg.RPCAdvertise
	if s.advertise == "" {
		s.advertise = ln.Addr().String()
	}
	adv, err := net.ResolveTCPAddr("tcp", s.advertise)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("resolving rpc advertise address %q: %w", s.advertise, err)
	}
	if adv.IP == nil || adv.IP.IsUnspecified() {
		ln.Close()
		return nil, fmt.Errorf("%w: rpc advertise address %q is not reachable by peers; set advertise", ErrConfig, s.advertise)
	}
	s.raftLayer = cluster.NewStreamLayer(adv, outgoingTLS(s.cfg.TLS))
	return ln, nil
}

// RPC calls an endpoint as any server answers a request: Status.* and stale
// reads here; writes and consistent reads on the leader, forwarded over the
// RPC port when this server is a follower. Without a leader it waits up to
// the hold timeout and then fails with structs.ErrNoLeader (503, "No
// cluster leader"). args and reply are the pointers the endpoint gets;
// coded errors keep their identity (rebuilt after a forward). The agent's
// HTTP API and an in-process client call it (server/rpcserver: the RPC
// port's calls take the same path).
func (s *Server) RPC(method string, args, reply any) error {
	return s.rpc.RPC(method, args, reply)
}

// RPCAddr returns the address the RPC listener is bound to ("" without one).
func (s *Server) RPCAddr() string { return s.rpc.Addr() }

// outgoingTLS is the config for dialing other servers (nil: plaintext).
func outgoingTLS(t *RPCTLSConfig) *tls.Config {
	if t == nil {
		return nil
	}
	return t.Outgoing
}
