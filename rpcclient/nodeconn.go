package rpcclient

import (
	"crypto/tls"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// maxHandshakeFrame bounds one handshake frame of RPCNodeTunnel and
// RPCNodeDial (IDs and a message: far below).
const maxHandshakeFrame = 4 << 10

// HandshakeTimeout bounds the handshake of a node tunnel or node dial.
const HandshakeTimeout = 10 * time.Second

// TunnelHello opens an RPCNodeTunnel: the node's ID and SecretID, checked
// by the server against its state.
type TunnelHello struct {
	NodeID, SecretID string
}

// NodeDialRequest opens an RPCNodeDial to the node NodeID. Forwarded is
// set by a server asking another one: the answering server then looks only
// at the tunnels it holds (so a request never travels more than one hop).
type NodeDialRequest struct {
	NodeID    string
	Forwarded bool
}

// HandshakeReply answers a TunnelHello or NodeDialRequest: Code 0 accepts;
// otherwise Code and Error are a structs.CodedError's.
type HandshakeReply struct {
	Code  int
	Error string `json:",omitempty"`
}

// Err returns the reply as an error (nil when accepted).
func (r *HandshakeReply) Err() error {
	if r.Code == 0 {
		return nil
	}
	return structs.NewCodedError(r.Code, "%s", r.Error)
}

// ReplyFor returns the reply carrying err (nil: accepted); an error without
// a code is a 500.
func ReplyFor(err error) HandshakeReply {
	if err == nil {
		return HandshakeReply{}
	}
	code, msg := structs.ErrorCode(err)
	return HandshakeReply{Code: code, Error: msg}
}

// WriteFrame writes v as one handshake frame: a 2-byte big-endian length,
// then v as JSON.
func WriteFrame(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if len(b) > maxHandshakeFrame {
		return fmt.Errorf("rpcclient: handshake frame of %d bytes is over %d", len(b), maxHandshakeFrame)
	}
	buf := binary.BigEndian.AppendUint16(make([]byte, 0, 2+len(b)), uint16(len(b)))
	_, err = w.Write(append(buf, b...))
	return err
}

// ReadFrame reads one handshake frame into v, reading exactly the frame's
// bytes (what follows belongs to the next protocol).
func ReadFrame(r io.Reader, v any) error {
	var n [2]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return fmt.Errorf("reading a handshake frame: %w", err)
	}
	size := int(binary.BigEndian.Uint16(n[:]))
	if size > maxHandshakeFrame {
		return fmt.Errorf("rpcclient: handshake frame of %d bytes is over %d", size, maxHandshakeFrame)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		return fmt.Errorf("reading a handshake frame: %w", err)
	}
	return json.Unmarshal(b, v)
}

// DialNodeTunnel opens a node tunnel to the server at addr as nodeID
// (authenticated by secret). The returned connection is ready for the
// yamux session in which the server opens streams; a refusal is the
// server's coded error (404 unknown node, 403 wrong secret).
func DialNodeTunnel(addr string, tlsCfg *tls.Config, nodeID, secret string) (net.Conn, error) {
	return dialHandshake(addr, RPCNodeTunnel, tlsCfg, TunnelHello{NodeID: nodeID, SecretID: secret})
}

// DialNode opens a connection to the client of node nodeID through the
// server at addr (which asks the other servers when it does not hold the
// node's tunnel, unless forwarded is set). The returned connection speaks
// HTTP to the node's client-only API. A refusal is the server's coded
// error (502, server/nodeconn.ErrNoPath, when no server holds the
// node's tunnel).
func DialNode(addr string, tlsCfg *tls.Config, nodeID string, forwarded bool) (net.Conn, error) {
	return dialHandshake(addr, RPCNodeDial, tlsCfg, NodeDialRequest{NodeID: nodeID, Forwarded: forwarded})
}

// dialHandshake dials addr with proto, sends hello and reads the reply.
func dialHandshake(addr string, proto byte, tlsCfg *tls.Config, hello any) (net.Conn, error) {
	conn, err := Dial(addr, proto, tlsCfg, DialTimeout)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errDial, err)
	}
	conn.SetDeadline(time.Now().Add(HandshakeTimeout))
	var reply HandshakeReply
	if err := WriteFrame(conn, hello); err == nil {
		err = ReadFrame(conn, &reply)
	}
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("handshake with %s: %w", addr, err)
	}
	if err := reply.Err(); err != nil {
		conn.Close()
		return nil, err
	}
	conn.SetDeadline(time.Time{})
	return conn, nil
}
