package rpcserver

import (
	"io"
	"net"
	"time"

	"github.com/nomadish/nomadish/rpcclient"
)

// Port layout: one TCP port (the RPC address) carries the RPC protocol
// and raft, told apart by the connection's first byte, like Nomad. The
// values live in rpcclient (the dialing side); the list is append-only.
const (
	// RPCNomad starts a net/rpc connection with the msgpack codec.
	RPCNomad = rpcclient.RPCNomad
	// RPCRaft starts a raft transport connection.
	RPCRaft = rpcclient.RPCRaft
	// RPCMultiplex starts a yamux session; each stream is net/rpc msgpack.
	RPCMultiplex = rpcclient.RPCMultiplex
	// RPCTLS starts TLS; the first byte of the protocol follows inside it.
	RPCTLS = rpcclient.RPCTLS
)

// serveListener accepts connections until the listener closes.
func (s *Server) serveListener() {
	defer s.wg.Done()
	adm := newRPCAdmission(s.cfg.Limits) // limits.go
	for {
		conn, err := s.cfg.Listener.Accept()
		if err != nil {
			select {
			case <-s.cfg.Shutdown:
				return
			default:
			}
			s.logger.Error("accepting RPC connection", "error", err)
			time.Sleep(5 * time.Millisecond) // avoid a hot loop on persistent accept errors
			continue
		}
		conn, ok := s.admit(adm, conn)
		if !ok {
			continue
		}
		if !s.trackConn(conn, true) {
			conn.Close()
			return
		}
		go s.handleConn(conn)
	}
}

// handleConn reads the first byte and hands the connection to RPC, raft
// (Config.Raft) or the node tunnels (Config.NodeTunnels).
// RPCTLS wraps the connection in TLS and reads the real first byte inside;
// a server with RPC TLS refuses every other connection.
func (s *Server) handleConn(raw net.Conn) {
	defer s.trackConn(raw, false)
	conn := raw
	proto, ok := readProto(conn, s.cfg.Limits.HandshakeTimeout)
	if ok && proto == RPCTLS {
		if conn = s.startTLS(raw); conn != nil {
			proto, ok = readProto(conn, s.cfg.Limits.HandshakeTimeout)
			ok = ok && proto != RPCTLS
		}
	} else if ok && s.requireTLS() {
		s.logger.Warn("refusing plaintext RPC connection: this server requires TLS (tls.rpc = true)",
			"remote", raw.RemoteAddr(), "byte", proto)
		ok = false
	}
	if !ok || conn == nil {
		raw.Close()
		return
	}
	switch proto {
	case RPCNomad:
		s.serveCodec(conn)
	case RPCMultiplex:
		s.serveMultiplex(conn)
	case rpcclient.RPCNodeTunnel:
		s.cfg.NodeTunnels.ServeTunnel(conn) // server/nodeconn
	case rpcclient.RPCNodeDial:
		s.cfg.NodeTunnels.ServeDial(conn)
	case rpcclient.RPCServerHTTP:
		if s.cfg.ServeHTTP == nil {
			conn.Close()
			return
		}
		s.cfg.ServeHTTP(conn)
	case RPCRaft:
		if s.cfg.Raft == nil {
			conn.Close()
			return
		}
		s.cfg.Raft.Handoff(conn) // raft's transport owns it now
	default:
		s.logger.Warn("unknown RPC protocol byte", "byte", proto, "remote", raw.RemoteAddr())
		conn.Close()
	}
}

// readProto reads a connection's protocol byte, waiting at most timeout
// (none when 0).
func readProto(conn net.Conn, timeout time.Duration) (byte, bool) {
	var b [1]byte
	if timeout > 0 { // limits.rpc_handshake_timeout (limits.go)
		// A network deadline: wall time, not the server's clock.
		conn.SetReadDeadline(time.Now().Add(timeout))
	}
	if _, err := io.ReadFull(conn, b[:]); err != nil {
		return 0, false
	}
	conn.SetReadDeadline(time.Time{})
	return b[0], true
}

// serveCodec answers the calls of one RPC conversation (an RPCNomad
// connection or an RPCMultiplex stream) until it closes, each request
// under its byte budget (codec.go).
func (s *Server) serveCodec(conn io.ReadWriteCloser) {
	s.serveRPCCodec(newServerCodec(conn)) // serve_codec.go: forwards to the leader
}

// trackConn adds (or removes) an open connection; Close closes them. It
// reports false when adding after Close.
func (s *Server) trackConn(c net.Conn, add bool) bool {
	s.connsMu.Lock()
	defer s.connsMu.Unlock()
	if !add {
		delete(s.conns, c)
		return true
	}
	if s.conns == nil {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

// closeConns closes every open connection; later ones are refused.
func (s *Server) closeConns() {
	s.connsMu.Lock()
	conns := s.conns
	s.conns = nil
	s.connsMu.Unlock()
	for c := range conns {
		c.Close()
	}
}
