package rpcserver

import (
	"errors"
	"fmt"
	"reflect"

	metrics "github.com/hashicorp/go-metrics"
	"github.com/nomadish/nomadish/structs"
)

// The RPC metrics, Nomad's names: every call, and every call that failed.
var (
	metricRPCRequest      = []string{"nomad", "rpc", "request"}
	metricRPCRequestError = []string{"nomad", "rpc", "request_error"}
)

// ErrUnknownMethod is returned by RPC for a method no endpoint serves. Its
// text ("server: ...") reaches RPC callers and is kept as it was.
var ErrUnknownMethod = errors.New("server: unknown RPC method")

// rpcMethod is one endpoint method: func(args *A, reply *R) error.
type rpcMethod struct {
	fn        reflect.Value
	argType   reflect.Type
	replyType reflect.Type
}

// Register serves receiver's methods of the form func(args *A, reply *R)
// error as name + "." + method ("Job.Register"), over TCP and in process.
// Call it for each endpoint before Serve; it fails, like net/rpc's
// RegisterName, when receiver has no such method or name is taken.
func (s *Server) Register(name string, receiver any) error {
	if err := s.rpcServer.RegisterName(name, receiver); err != nil {
		return fmt.Errorf("registering %s endpoint: %w", name, err)
	}
	errType := reflect.TypeOf((*error)(nil)).Elem()
	v := reflect.ValueOf(receiver)
	for i := 0; i < v.NumMethod(); i++ {
		m := v.Type().Method(i)
		ft := m.Type // includes the receiver
		if ft.NumIn() != 3 || ft.NumOut() != 1 || ft.Out(0) != errType ||
			ft.In(1).Kind() != reflect.Pointer || ft.In(2).Kind() != reflect.Pointer {
			continue
		}
		s.methods[name+"."+m.Name] = rpcMethod{fn: v.Method(i), argType: ft.In(1), replyType: ft.In(2)}
	}
	return nil
}

// localRPC calls an endpoint in process, without encoding (RPC calls it
// once it knows this server answers; forward.go). args and reply are the
// pointers the endpoint gets; errors come back as the endpoint returned them (coded errors keep
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
	metrics.IncrCounter(metricRPCRequest, 1)
	defer func() {
		if err != nil {
			metrics.IncrCounter(metricRPCRequestError, 1)
		}
	}()
	defer s.Recover(method, &err)
	out := m.fn.Call([]reflect.Value{av, rv})
	if err, _ := out[0].Interface().(error); err != nil {
		return err
	}
	return nil
}
