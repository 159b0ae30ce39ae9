package rpcserver

import (
	"crypto/tls"
	"io"
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
		drainBeforeClose(conn)
		return nil
	}
	tc.SetDeadline(time.Time{})
	return tc
}

// requireTLS reports whether plaintext RPC connections are refused.
func (s *Server) requireTLS() bool { return s.cfg.TLS != nil && s.cfg.TLS.Incoming != nil }

// refusalDrain bounds how long a refused TLS connection is read from before
// it is closed.
const refusalDrain = 250 * time.Millisecond

// drainBeforeClose ends our side of a refused connection (the TLS alert is
// already written) and reads what the peer had sent, for refusalDrain at
// most, so that the close is a FIN, not a reset that would discard the
// alert before the peer reads it: with TLS 1.3 the client learns the
// refusal only on its first read, after it has written its request.
func drainBeforeClose(conn net.Conn) {
	if cw, ok := conn.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
	conn.SetReadDeadline(time.Now().Add(refusalDrain)) // a network deadline: wall time
	io.Copy(io.Discard, io.LimitReader(conn, 64<<10))
}
