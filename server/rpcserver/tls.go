package rpcserver

import (
	"crypto/tls"
	"net"
	"time"

	"github.com/nomadish/nomadish/rpcclient"
)

// startTLS runs the server side of the TLS handshake on conn (after the
// RPCTLS byte). It returns nil, logging why, when the server has no RPC
// TLS (Config.TLS) or the peer is refused (bad, missing or foreign-region certificate).
func (s *Server) startTLS(conn net.Conn) net.Conn {
	if s.cfg.TLS == nil || s.cfg.TLS.Incoming == nil {
		s.logger.Warn("refusing a TLS RPC connection: tls.rpc is not enabled on this server", "remote", conn.RemoteAddr())
		return nil
	}
	tc := tls.Server(conn, s.cfg.TLS.Incoming)
	tc.SetDeadline(time.Now().Add(rpcclient.TLSHandshakeTimeout)) // a network deadline: wall time
	if err := tc.Handshake(); err != nil {
		s.logger.Warn("refusing RPC connection: TLS handshake failed", "remote", conn.RemoteAddr(), "error", err)
		return nil
	}
	tc.SetDeadline(time.Time{})
	return tc
}

// requireTLS reports whether plaintext RPC connections are refused.
func (s *Server) requireTLS() bool { return s.cfg.TLS != nil && s.cfg.TLS.Incoming != nil }
