package agent

import (
	"fmt"

	"github.com/nomadish/nomadish/server"
)

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
