package agent

import (
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/nomadish/nomadish/server"
	"github.com/nomadish/nomadish/structs"
)

// errStopping is what a blocking query of the client gets once the agent
// shuts down.
var errStopping = errors.New("agent: shutting down")

// lazyRPC is the RPCer of a client started while its in-process server is
// still being built: calls wait until set.
type lazyRPC struct {
	ready chan struct{} // closed by set
	rpc   RPCer         // written before ready is closed
	err   error         // written before ready is closed
}

func newLazyRPC() *lazyRPC { return &lazyRPC{ready: make(chan struct{})} }

func (l *lazyRPC) set(srv *server.Server, err error) {
	if err != nil {
		l.err = fmt.Errorf("agent: the server failed to start: %w", err)
	} else {
		l.rpc = srv
	}
	close(l.ready)
}

func (l *lazyRPC) RPC(method string, args, reply any) error {
	<-l.ready
	if l.err != nil {
		return l.err
	}
	return l.rpc.RPC(method, args, reply)
}

// stoppableRPC is the client's RPCer. After stop, blocking queries (a
// MinQueryIndex > 0) in flight return errStopping at once, and new ones fail
// at once: a blocked RPC cannot be interrupted otherwise, and the client's
// Shutdown waits for its alloc watcher, whose long poll lasts up to 5
// minutes. Other calls pass through unchanged, so a dev-mode client still
// reports the tasks it kills on Shutdown. The abandoned call ends when the
// server (or the TCP connection) shuts down; its reply is never read.
type stoppableRPC struct {
	rpc    RPCer
	stopCh chan struct{}
	once   sync.Once
}

func newStoppableRPC(rpc RPCer) *stoppableRPC {
	return &stoppableRPC{rpc: rpc, stopCh: make(chan struct{})}
}

func (s *stoppableRPC) stop() { s.once.Do(func() { close(s.stopCh) }) }

func (s *stoppableRPC) RPC(method string, args, reply any) error {
	if !blockingQuery(args) {
		return s.rpc.RPC(method, args, reply)
	}
	select {
	case <-s.stopCh:
		return errStopping
	default:
	}
	done := make(chan error, 1)
	go func() { done <- s.rpc.RPC(method, args, reply) }()
	select {
	case err := <-done:
		return err
	case <-s.stopCh:
		return errStopping
	}
}

// blockingQuery reports whether args is a request (pointer to a struct
// embedding structs.QueryOptions) that blocks on an index.
func blockingQuery(args any) bool {
	v := reflect.ValueOf(args)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return false
	}
	f := v.FieldByName("QueryOptions")
	if !f.IsValid() {
		return false
	}
	q, ok := f.Interface().(structs.QueryOptions)
	return ok && q.MinQueryIndex > 0
}
