package server

import (
	"fmt"
	"net/rpc"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
)

// serveRPCCodec answers the calls arriving on one RPC connection (or
// stream) until it closes, each in its own goroutine, as net/rpc's
// ServeCodec does, but dispatching through RPC so that a follower forwards
// what the leader must answer, and answering forwarded calls (method
// prefixed with forwardedPrefix) itself. Endpoint errors travel as their
// Error() text; coded errors keep their "<code>: " prefix for
// structs.DecodeRPCError. It closes codec before returning.
//
// Nothing a peer sends ends the process: endpoint panics become 500 errors
// in localRPC (rpc.go); a panic anywhere else on a call's goroutine
// (forwarding, encoding the reply) is answered as the same error; a panic
// while decoding closes this conversation only.
func (s *Server) serveRPCCodec(codec rpc.ServerCodec) {
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
			return
		}
		method, forwarded := strings.CutPrefix(req.ServiceMethod, forwardedPrefix)
		m, ok := s.methods[method]
		if !ok {
			if err := codec.ReadRequestBody(nil); err != nil {
				return
			}
			s.writeRPCResponse(codec, &sending, &req, nil, fmt.Errorf("%w %q", ErrUnknownMethod, method))
			continue
		}
		args := reflect.New(m.argType.Elem()).Interface()
		if err := codec.ReadRequestBody(args); err != nil {
			return
		}
		reply := reflect.New(m.replyType.Elem()).Interface()
		wg.Add(1)
		go func(req rpc.Request) {
			defer wg.Done()
			var err error
			func() {
				defer s.recoverRPC(req.ServiceMethod, &err)
				if forwarded {
					err = s.rpcForwarded(method, args, reply)
				} else {
					err = s.RPC(method, args, reply)
				}
			}()
			s.writeRPCResponse(codec, &sending, &req, reply, err)
		}(req)
	}
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
		defer s.recoverRPC(req.ServiceMethod, &encErr)
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
