// Package clock is the one clock interface of the server (every time stamped
// into state, the eval broker, heartbeats, plan applier, deployment watcher
// and node drainer): they take a Clock
// instead of calling time.Now and time.AfterFunc, so tests drive them with
// clocktest.FakeClock or inside testing/synctest.
package clock

import "time"

// Timer is a pending AfterFunc call. *time.Timer satisfies it.
type Timer interface{ Stop() bool }

// Clock tells the time and schedules callbacks. Callbacks run on a
// goroutine of the clock's choosing (the real clock: their own; the fake:
// the one calling Advance), so they must not assume the caller's locks.
type Clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) Timer
}

// Real is the wall clock.
type Real struct{}

// Now calls time.Now.
func (Real) Now() time.Time { return time.Now() }

// AfterFunc calls time.AfterFunc.
func (Real) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
