// Package gopool runs functions on goroutines kept for reuse. A goroutine
// that finishes one waits up to an idle time for the next before it exits,
// so the stack a call grew is kept instead of grown again by the next
// goroutine: the RPC server's per-request goroutines, whose stacks grow
// through msgpack's reflection on every request, spent 8% of a loaded
// leader's CPU copying stacks. Concurrency is not bounded: Go hands the
// function to an idle goroutine or starts one. It imports only the
// standard library.
package gopool

import (
	"sync"
	"time"
)

// Pool is a set of reusable goroutines. The zero value is not usable: use New.
type Pool struct {
	work chan func()
	idle time.Duration
	done chan struct{}
	once sync.Once
}

// New returns a pool whose goroutines wait idle for more work before they
// exit.
func New(idle time.Duration) *Pool {
	return &Pool{work: make(chan func()), idle: idle, done: make(chan struct{})}
}

// Go runs fn on an idle goroutine of the pool, or a new one. After Close
// it still runs fn, on a goroutine that then exits.
func (p *Pool) Go(fn func()) {
	select {
	case p.work <- fn:
	default:
		go p.run(fn)
	}
}

func (p *Pool) run(fn func()) {
	t := time.NewTimer(p.idle)
	defer t.Stop()
	for {
		fn()
		t.Reset(p.idle)
		select {
		case fn = <-p.work:
		case <-t.C:
			return
		case <-p.done:
			return
		}
	}
}

// Close ends the idle goroutines; running ones end after their function.
func (p *Pool) Close() { p.once.Do(func() { close(p.done) }) }
