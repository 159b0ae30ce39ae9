package rpcclient

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/rpc"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/yamux"
)

// The first byte of a connection to a server's RPC port says what follows
// (Nomad's numbering). The list is append-only: never renumber.
const (
	// RPCNomad: one net/rpc msgpack conversation (kept for compatibility).
	RPCNomad byte = 0x01
	// RPCRaft: a raft transport connection.
	RPCRaft byte = 0x02
	// RPCMultiplex: a yamux session whose every stream is one net/rpc
	// msgpack conversation.
	RPCMultiplex byte = 0x03
	// RPCTLS: a TLS handshake follows; inside TLS, one of the bytes above.
	RPCTLS byte = 0x04
	// nomadish's own bytes start at 0x10, above Nomad's (0x05-0x08).
	// RPCNodeTunnel: a client's node tunnel (nodeconn.go): a TunnelHello
	// frame, the server's HandshakeReply, then a yamux session in which
	// the server opens streams, each one HTTP connection to the client's
	// client-only API.
	RPCNodeTunnel byte = 0x10
	// RPCNodeDial: a NodeDialRequest frame, a HandshakeReply, then the
	// connection is bridged to a stream of the node's tunnel.
	RPCNodeDial byte = 0x11
	// RPCServerHTTP: the connection speaks HTTP to the server agent's
	// server-only routes (the event stream): how a client-only agent
	// forwards GET /v1/event/stream (agent/http_events_forward.go).
	RPCServerHTTP byte = 0x12
)

// TLSHandshakeTimeout bounds a TLS handshake on the RPC port.
const TLSHandshakeTimeout = 10 * time.Second

// Dial connects to a server's RPC port and announces proto (RPCNomad,
// RPCRaft or RPCMultiplex). With tlsCfg non-nil the connection first
// announces RPCTLS and runs the TLS handshake, then announces proto inside
// TLS. The returned connection is ready for proto's protocol.
func Dial(addr string, proto byte, tlsCfg *tls.Config, timeout time.Duration) (net.Conn, error) {
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, fmt.Errorf("dialing %s: %w", addr, err)
	}
	if tlsCfg != nil {
		if _, err := conn.Write([]byte{RPCTLS}); err != nil {
			conn.Close()
			return nil, fmt.Errorf("writing to %s: %w", addr, err)
		}
		tc := tls.Client(conn, tlsCfg)
		tc.SetDeadline(time.Now().Add(TLSHandshakeTimeout))
		if err := tc.Handshake(); err != nil {
			conn.Close()
			return nil, fmt.Errorf("TLS handshake with %s: %w", addr, err)
		}
		tc.SetDeadline(time.Time{})
		conn = tc
	}
	if _, err := conn.Write([]byte{proto}); err != nil {
		conn.Close()
		return nil, fmt.Errorf("writing to %s: %w", addr, err)
	}
	return conn, nil
}

// YamuxConfig returns the yamux settings both ends use, logging through
// logger.
func YamuxConfig(logger hclog.Logger) *yamux.Config {
	cfg := yamux.DefaultConfig()
	cfg.LogOutput = nil
	cfg.Logger = logger.StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true})
	cfg.ConnectionWriteTimeout = 10 * time.Second
	cfg.StreamCloseTimeout = time.Minute
	return cfg
}

// isConnErr reports whether err means the connection (or the yamux
// session or stream carrying the call) broke, so another server, or a
// fresh session, may succeed.
func isConnErr(err error) bool {
	var ne net.Error
	if errors.Is(err, ErrClosed) {
		return false
	}
	return errors.Is(err, rpc.ErrShutdown) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne) ||
		errors.Is(err, yamux.ErrSessionShutdown) || errors.Is(err, yamux.ErrStreamClosed) ||
		errors.Is(err, yamux.ErrConnectionReset) || errors.Is(err, yamux.ErrConnectionWriteTimeout) ||
		errors.Is(err, yamux.ErrKeepAliveTimeout) || errors.Is(err, yamux.ErrRemoteGoAway) ||
		errors.Is(err, yamux.ErrStreamsExhausted) || errors.Is(err, errDial)
}
