package server

import (
	"fmt"
	"net/rpc"
	"reflect"
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
func (s *Server) serveRPCCodec(codec rpc.ServerCodec) {
	var (
		sending sync.Mutex
		wg      sync.WaitGroup
	)
	defer func() {
		wg.Wait()
		codec.Close()
	}()
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
			writeRPCResponse(codec, &sending, &req, nil, fmt.Errorf("%w %q", ErrUnknownMethod, method))
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
			if forwarded {
				err = s.rpcForwarded(method, args, reply)
			} else {
				err = s.RPC(method, args, reply)
			}
			writeRPCResponse(codec, &sending, &req, reply, err)
		}(req)
	}
}

// writeRPCResponse sends one answer; sending serializes writers.
func writeRPCResponse(codec rpc.ServerCodec, sending *sync.Mutex, req *rpc.Request, reply any, err error) {
	resp := rpc.Response{ServiceMethod: req.ServiceMethod, Seq: req.Seq}
	if err != nil {
		resp.Error = err.Error()
		reply = struct{}{}
	}
	sending.Lock()
	defer sending.Unlock()
	codec.WriteResponse(&resp, reply) // a write error means the peer is gone
}
