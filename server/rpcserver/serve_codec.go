package rpcserver

import (
	"fmt"
	"net/rpc"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/nomadish/nomadish/structs"
)

// serveRPCCodec answers the calls arriving on one RPC connection (or
// stream) until it closes, each request read under its byte budget
// (codec.go), each in its own goroutine, as net/rpc's
// ServeCodec does, but dispatching through RPC so that a follower forwards
// what the leader must answer, and answering forwarded calls (method
// prefixed with forwardedPrefix) itself. Endpoint errors travel as their
// Error() text; coded errors keep their "<code>: " prefix for
// structs.DecodeRPCError. It closes codec before returning.
//
// Nothing a peer sends ends the process: endpoint panics become 500 errors
// in localRPC (dispatch.go); a panic anywhere else on a call's goroutine
// (forwarding, encoding the reply) is answered as the same error; a panic
// while decoding closes this conversation only.
func (s *Server) serveRPCCodec(codec *serverCodec) {
	var (
		sending sync.Mutex
		wg      sync.WaitGroup
	)
	defer func() {
		wg.Wait()
		codec.Close()
	}()
	defer s.recoverConversation()
	for {
		var req rpc.Request
		if err := codec.ReadRequestHeader(&req); err != nil {
			if over, limit := codec.overBudget(); over {
				s.logger.Error("RPC request header exceeds the byte budget; closing the connection",
					"limit", limit, "remote", codec.remote())
			}
			return
		}
		method, forwarded := strings.CutPrefix(req.ServiceMethod, forwardedPrefix)
		args, reply, ok := s.readRequestBody(codec, &sending, &req, method)
		if !ok {
			return
		}
		if args == nil {
			continue // answered already
		}
		wg.Add(1)
		s.calls.Go(func() { // a reused goroutine: its stack is grown already
			defer wg.Done()
			var err error
			func() {
				defer s.Recover(req.ServiceMethod, &err)
				if forwarded {
					err = s.rpcForwarded(method, args, reply)
				} else {
					err = s.RPC(method, args, reply)
				}
			}()
			s.writeRPCResponse(codec, &sending, &req, reply, err)
		})
	}
}

// readRequestBody reads req's body, under method's byte budget
// (rpcMessageBudget), into new args of method's type, and makes its reply.
// It returns ok false when the conversation must end: the body did not
// decode; it read past its budget (logged, answered with a 413 coded
// error); or it is a snapshot restore while another one is being read
// (answered with ErrSnapshotRestoreInProgress, 429; its body is left
// unread, since it cannot be skipped without reading it). args is nil, with
// ok true, when the request is answered already (an unknown method).
func (s *Server) readRequestBody(codec *serverCodec, sending *sync.Mutex, req *rpc.Request, method string) (args, reply any, ok bool) {
	codec.setBudget(rpcMessageBudget(method))
	m, known := s.methods[method]
	restore := known && method == structs.OperatorSnapshotRestoreRPC
	if restore {
		// One archive (up to RPCMaxSnapshotMessageBytes) in memory at a time.
		if !s.restoreReading.CompareAndSwap(false, true) {
			s.logger.Warn("refusing an RPC snapshot restore: another one is being received", "remote", codec.remote())
			s.writeRPCResponse(codec, sending, req, nil, structs.ErrSnapshotRestoreInProgress)
			return nil, nil, false
		}
		defer s.restoreReading.Store(false)
	}
	var err error
	switch {
	case restore:
		args = reflect.New(m.argType.Elem()).Interface()
		err = codec.readSnapshotRestoreBody(args)
	case known:
		args = reflect.New(m.argType.Elem()).Interface()
		err = codec.ReadRequestBody(args)
	default:
		err = codec.ReadRequestBody(nil)
	}
	if err != nil {
		if over, limit := codec.overBudget(); over {
			s.logger.Error("RPC request exceeds the byte budget for its method; closing the connection",
				"method", req.ServiceMethod, "limit", limit, "remote", codec.remote())
			s.writeRPCResponse(codec, sending, req, nil, tooLargeError(method, limit))
		}
		return nil, nil, false
	}
	if !known {
		s.writeRPCResponse(codec, sending, req, nil, fmt.Errorf("%w %q", ErrUnknownMethod, method))
		return nil, nil, true
	}
	return args, reflect.New(m.replyType.Elem()).Interface(), true
}

// writeRPCResponse sends one answer; sending serializes writers. A panic
// while encoding is logged and closes the conversation (part of the answer
// may already be on the wire, so nothing more can be framed after it).
func (s *Server) writeRPCResponse(codec rpc.ServerCodec, sending *sync.Mutex, req *rpc.Request, reply any, err error) {
	resp := rpc.Response{ServiceMethod: req.ServiceMethod, Seq: req.Seq}
	if err != nil {
		resp.Error = err.Error()
		reply = struct{}{}
	}
	sending.Lock()
	defer sending.Unlock()
	var encErr error
	func() {
		defer s.Recover(req.ServiceMethod, &encErr)
		codec.WriteResponse(&resp, reply) // a write error means the peer is gone
	}()
	if encErr != nil {
		codec.Close()
	}
}

// recoverConversation, deferred by serveRPCCodec, stops a panic raised
// while reading a request (a decoder failure on hostile bytes): it logs it
// and lets serveRPCCodec close the connection or stream.
func (s *Server) recoverConversation() {
	if p := recover(); p != nil {
		s.logger.Error("RPC conversation panicked while decoding; closing it",
			"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	}
}
