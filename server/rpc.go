package server

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/rpc"
	"reflect"
	"time"

	"github.com/nomadish/nomadish/rpcclient"
	"github.com/nomadish/nomadish/server/endpoints"
	"github.com/nomadish/nomadish/structs"
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

// ErrUnknownMethod is returned by RPC for a method no endpoint serves.
var ErrUnknownMethod = errors.New("server: unknown RPC method")

// rpcMethod is one endpoint method: func(args *A, reply *R) error.
type rpcMethod struct {
	fn        reflect.Value
	argType   reflect.Type
	replyType reflect.Type
}

// registerEndpoints builds the endpoints (server/endpoints) over the
// server's narrow dependencies and registers each with the TCP net/rpc
// server and in the in-process method table.
func (s *Server) registerEndpoints() error {
	s.rpcServer = rpc.NewServer()
	s.methods = map[string]rpcMethod{}
	set, err := endpoints.New(s.endpointDeps())
	if err != nil {
		return err
	}
	s.endpoints = set
	errType := reflect.TypeOf((*error)(nil)).Elem()
	for _, e := range set.Endpoints {
		name, ep := e.Name, e.Receiver
		if err := s.rpcServer.RegisterName(name, ep); err != nil {
			return fmt.Errorf("registering %s endpoint: %w", name, err)
		}
		v := reflect.ValueOf(ep)
		for i := 0; i < v.NumMethod(); i++ {
			m := v.Type().Method(i)
			ft := m.Type // includes the receiver
			if ft.NumIn() != 3 || ft.NumOut() != 1 || ft.Out(0) != errType ||
				ft.In(1).Kind() != reflect.Pointer || ft.In(2).Kind() != reflect.Pointer {
				continue
			}
			s.methods[name+"."+m.Name] = rpcMethod{fn: v.Method(i), argType: ft.In(1), replyType: ft.In(2)}
		}
	}
	return nil
}

// localRPC calls an endpoint in process, without encoding (RPC calls it
// once it knows this server answers; forward.go). args and reply are the pointers the endpoint
// gets; errors come back as the endpoint returned them (coded errors keep
// their identity). Net/rpc's own Server would turn errors into strings, so
// in-process calls use a method table built from the same endpoints.
//
// It is the one place every call reaches an endpoint (TCP and multiplexed
// RPC, forwarded calls, the HTTP API and an in-process client), so it is
// where requests are checked and endpoint panics stop: args with a nil
// member (structs.CheckDecoded) get a 400 coded error before the endpoint
// runs; a panic inside the endpoint is recovered, logged with the method
// and stack, and returned as ErrRPCPanic's 500 coded error.
func (s *Server) localRPC(method string, args, reply any) (err error) {
	m, ok := s.methods[method]
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownMethod, method)
	}
	av, rv := reflect.ValueOf(args), reflect.ValueOf(reply)
	if av.Type() != m.argType || rv.Type() != m.replyType || av.IsNil() || rv.IsNil() {
		return fmt.Errorf("server: %s wants (%s, %s), got (%T, %T)", method, m.argType, m.replyType, args, reply)
	}
	if err := structs.CheckDecoded(args); err != nil {
		return err
	}
	defer s.recoverRPC(method, &err)
	out := m.fn.Call([]reflect.Value{av, rv})
	if err, _ := out[0].Interface().(error); err != nil {
		return err
	}
	return nil
}

// serveListener accepts connections until the listener closes.
func (s *Server) serveListener() {
	defer s.wg.Done()
	adm := newRPCAdmission(s.cfg.RPCLimits) // rpc_limits.go
	for {
		conn, err := s.listener.Accept()
		if err != nil {
			select {
			case <-s.shutdownCh:
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

// handleConn reads the first byte and hands the connection to RPC or raft.
// RPCTLS wraps the connection in TLS and reads the real first byte inside;
// a server with RPC TLS refuses every other connection.
func (s *Server) handleConn(raw net.Conn) {
	defer s.trackConn(raw, false)
	conn := raw
	proto, ok := readProto(conn, s.cfg.RPCLimits.HandshakeTimeout)
	if ok && proto == RPCTLS {
		if conn = s.startTLS(raw); conn != nil {
			proto, ok = readProto(conn, s.cfg.RPCLimits.HandshakeTimeout)
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
		s.nodeConns.ServeTunnel(conn) // node_conns.go
	case rpcclient.RPCNodeDial:
		s.nodeConns.ServeDial(conn)
	case RPCRaft:
		if s.raftLayer == nil {
			conn.Close()
			return
		}
		s.raftLayer.Handoff(conn) // raft's transport owns it now
	default:
		s.logger.Warn("unknown RPC protocol byte", "byte", proto, "remote", raw.RemoteAddr())
		conn.Close()
	}
}

// readProto reads a connection's protocol byte, waiting at most 10 s.
func readProto(conn net.Conn, timeout time.Duration) (byte, bool) {
	var b [1]byte
	if timeout > 0 { // limits.rpc_handshake_timeout (rpc_limits.go)
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
// under its byte budget (rpc_codec.go).
func (s *Server) serveCodec(conn io.ReadWriteCloser) {
	s.serveRPCCodec(newServerCodec(conn)) // forward_serve.go: forwards to the leader
}

// trackConn adds (or removes) an open connection; Shutdown closes them. It
// reports false when adding after shutdown.
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

func (s *Server) closeConns() {
	s.connsMu.Lock()
	conns := s.conns
	s.conns = nil
	s.connsMu.Unlock()
	for c := range conns {
		c.Close()
	}
}
