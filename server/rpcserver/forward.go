package rpcserver

import (
	"errors"
	"net"
	"reflect"
	"strings"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// forwardedPrefix marks, on the wire, a call another server forwarded: the
// receiver answers it itself (or fails with ErrNoLeader at once) and never
// forwards it again, so leadership disagreements cannot bounce a request
// between servers.
const forwardedPrefix = "Fwd."

// forwardPoll is how often a request waiting for a leader looks again.
const forwardPoll = 10 * time.Millisecond

// rpcKind says where a method is served.
type rpcKind int

const (
	kindLocal rpcKind = iota // any server answers (Status.*)
	kindRead                 // the leader, unless the query allows stale
	kindWrite                // the leader
)

// readRequest is what embedding structs.QueryOptions gives a request's
// pointer.
type readRequest interface {
	IsRead() bool
	AllowStaleRead() bool
}

// kindOf classifies method from its args: Status.* is local; args embedding
// QueryOptions are reads; everything else (WriteRequest and the rest) is a
// write, which is the safe default.
func kindOf(method string, args any) (rpcKind, bool) {
	if strings.HasPrefix(method, "Status.") {
		return kindLocal, false
	}
	if r, ok := args.(readRequest); ok { // *XxxRequest embedding QueryOptions
		return kindRead, r.AllowStaleRead()
	}
	v := reflect.ValueOf(args) // a struct value (tests), not a pointer

	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() == reflect.Struct {
		if q := v.FieldByName("QueryOptions"); q.IsValid() && q.Type() == reflect.TypeOf(structs.QueryOptions{}) {
			return kindRead, q.FieldByName("AllowStale").Bool()
		}
	}
	return kindWrite, false
}

// RPC calls an endpoint as any server answers a request: Status.* and stale
// reads here; writes and consistent reads on the leader, forwarded over the
// RPC port when this server is a follower. Without a leader it waits up to
// the hold timeout and then fails with structs.ErrNoLeader (503, "No
// cluster leader"). args and reply are the pointers the endpoint gets;
// coded errors keep their identity (rebuilt after a forward). The server's
// Server.RPC (the agent's HTTP API, an in-process client) and the RPC
// port's conversations (serve_codec.go) call it.
func (s *Server) RPC(method string, args, reply any) error {
	kind, stale := kindOf(method, args)
	if kind == kindLocal || stale {
		return s.localRPC(method, args, reply)
	}
	// The hold timeout and forward poll are network waits on wall time, not
	// Config.Clock: they bound a caller's latency and stamp nothing, and a
	// fake clock must not stall RPCs.
	deadline := time.Now().Add(s.cfg.HoldTimeout)
	var lastErr error = structs.ErrNoLeader
	for {
		if s.cfg.Leadership.IsLeader() {
			return s.localRPC(method, args, reply)
		}
		if leader := s.cfg.Leadership.Leader(); leader != "" && leader != s.cfg.Advertise {
			err := s.peers.RPC(leader, forwardedPrefix+method, args, reply)
			if err == nil || !retryForward(kind, err) {
				return err
			}
			lastErr = err
		}
		if !time.Now().Before(deadline) {
			return lastErr
		}
		select {
		case <-time.After(forwardPoll):
		case <-s.cfg.Shutdown:
			return structs.ErrNoLeader
		}
	}
}

// rpcForwarded answers a call another server forwarded: here if this server
// leads (or the call needs no leader), else ErrNoLeader at once so the
// sender looks for the leader again.
func (s *Server) rpcForwarded(method string, args, reply any) error {
	if kind, stale := kindOf(method, args); kind != kindLocal && !stale && !s.cfg.Leadership.IsLeader() {
		return structs.ErrNoLeader
	}
	return s.localRPC(method, args, reply)
}

// retryForward reports whether a failed forward may be sent again: always
// when the receiver had no leader (it did nothing); for reads also after a
// broken connection; for writes only when the dial failed (nothing was
// sent, so the write cannot have happened twice).
func retryForward(kind rpcKind, err error) bool {
	var ce *structs.CodedError
	if errors.As(err, &ce) {
		return ce.Code == structs.ErrCodeNoLeader
	}
	if kind == kindRead {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
