package agent

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"

	"github.com/hashicorp/yamux"

	"github.com/nomadish/nomadish/client"
	"github.com/nomadish/nomadish/rpcclient"
	"github.com/nomadish/nomadish/structs"
)

// outgoingRPCTLS is the TLS config of connections to servers (nil:
// plaintext).
func (a *Agent) outgoingRPCTLS() *tls.Config {
	if a.rpcTLS == nil {
		return nil
	}
	return a.rpcTLS.Outgoing
}

// nodeDialer is how the HTTP API reaches other nodes' clients: through the
// in-process server's node tunnels, or through this client-only agent's
// servers (RPCNodeDial).
func (a *Agent) nodeDialer() NodeDialer {
	if a.server != nil {
		return a.server
	}
	if a.rpcClient == nil {
		return nil
	}
	return &serversNodeDialer{servers: a.rpcClient.Servers, tls: a.outgoingRPCTLS()}
}

// serversNodeDialer dials nodes through the servers of a client-only agent.
type serversNodeDialer struct {
	servers func() []string
	tls     *tls.Config
}

// DialNode asks each server in turn until one answers: its answer (a
// connection, or its coded error after it asked the other servers) is
// final; servers that cannot be reached are skipped.
func (d *serversNodeDialer) DialNode(ctx context.Context, nodeID string) (net.Conn, error) {
	err := client.ErrNoServers
	for _, addr := range d.servers() {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var conn net.Conn
		conn, err = rpcclient.DialNode(addr, d.tls, nodeID, false)
		var ce *structs.CodedError
		if err == nil || errors.As(err, &ce) {
			return conn, err
		}
	}
	return nil, err
}

// startTunnel has the agent's client keep a node tunnel to a server
// (client/tunnel.go), serving h's client endpoints to the servers.
func (a *Agent) startTunnel(h http.Handler) {
	servers := func() []string { return nil }
	if a.rpcClient != nil {
		servers = a.rpcClient.Servers
	} else if addr := a.RPCAddr(); addr != "" {
		servers = func() []string { return []string{addr} }
	}
	tlsOut := a.outgoingRPCTLS()
	logger := a.logger.Named("tunnel")
	a.client.StartTunnel(client.TunnelConfig{
		Handler: tunnelHandler(h),
		Servers: servers,
		Dial: func(addr, nodeID, secret string) (net.Listener, error) {
			conn, err := rpcclient.DialNodeTunnel(addr, tlsOut, nodeID, secret)
			if err != nil {
				return nil, err
			}
			sess, err := yamux.Client(conn, rpcclient.YamuxConfig(logger))
			if err != nil {
				conn.Close()
				return nil, err
			}
			return sess, nil
		},
	})
}
