package clienttest

import (
	"net"
	"reflect"
	"sync"
	"syscall"
)

// Caller is the client's RPCer (declared again here: clienttest does not
// import client).
type Caller interface {
	RPC(method string, args, reply any) error
}

// Front is one "server address" in front of a shared server (e.g. a
// FakeServer): while up it passes calls through; while down it refuses new
// calls with a connection-refused net.Error and fails the calls in flight
// with one too, as a killed server process would. Safe for concurrent use.
type Front struct {
	srv Caller

	mu    sync.Mutex
	down  chan struct{} // guarded by mu: closed while down
	hung  chan struct{} // guarded by mu: nil, or open while calls hang
	calls int           // guarded by mu: calls that reached srv
}

// NewFront returns an up front of srv.
func NewFront(srv Caller) *Front { return &Front{srv: srv, down: make(chan struct{})} }

// errRefused is what a down front answers.
var errRefused = &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}

// SetDown takes the front down (true) or brings it back up.
func (f *Front) SetDown(down bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case <-f.down:
		if !down {
			f.down = make(chan struct{})
		}
	default:
		if down {
			close(f.down)
		}
	}
}

// SetHung makes calls hang without an answer (true), as a server behind a
// partition, until SetHung(false) lets them through.
func (f *Front) SetHung(hung bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case hung && f.hung == nil:
		f.hung = make(chan struct{})
	case !hung && f.hung != nil:
		close(f.hung)
		f.hung = nil
	}
}

// Calls returns how many calls reached the server through this front.
func (f *Front) Calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// RPC passes the call to the server unless the front is (or goes) down.
// The server fills a fresh reply, copied into reply on success, so a call
// failed by SetDown(true) that keeps running on the server never writes
// into reply (as net/rpc drops the replies of a broken connection).
func (f *Front) RPC(method string, args, reply any) error {
	f.mu.Lock()
	down := f.down
	select {
	case <-down:
		f.mu.Unlock()
		return errRefused
	default:
	}
	f.calls++
	hung := f.hung
	f.mu.Unlock()
	if hung != nil {
		<-hung
	}
	done := make(chan error, 1)
	fresh := reflect.New(reflect.TypeOf(reply).Elem())
	go func() { done <- f.srv.RPC(method, args, fresh.Interface()) }()
	select {
	case err := <-done:
		if err == nil {
			reflect.ValueOf(reply).Elem().Set(fresh.Elem())
		}
		return err
	case <-down:
		return errRefused
	}
}
