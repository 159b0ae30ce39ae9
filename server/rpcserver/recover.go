package rpcserver

import (
	"fmt"
	"runtime/debug"

	"github.com/nomadish/nomadish/structs"
)

// rpcPanicMessage is the message of the 500 coded error a call gets when its
// endpoint panicked; the details stay in the server's log.
const rpcPanicMessage = "internal error in %s: the server recovered from a failure and logged it"

// Recover, deferred around an endpoint call (and by the endpoints around
// their own goroutines' work: endpoints.Deps.Recover), turns a panic into a 500
// coded error in *err and logs it at error level with the method, the
// panic value and the stack. The process keeps serving: net/rpc-style
// dispatch runs each call on a goroutine of its own, where an unrecovered
// panic would end the whole agent.
func (s *Server) Recover(method string, err *error) {
	p := recover()
	if p == nil {
		return
	}
	s.logger.Error("RPC handler panicked; the call fails with a 500 error",
		"method", method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	*err = structs.NewCodedError(structs.ErrCodeInternal, rpcPanicMessage, method)
}
