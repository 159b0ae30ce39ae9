// Package clocktest holds the fake clock that tests of the server's timed
// parts (broker, heartbeats, deployment watcher, drainer, endpoints) share.
package clocktest

import (
	"sort"
	"sync"
	"time"

	"github.com/nomadish/nomadish/internal/clock"
)

var _ clock.Clock = (*FakeClock)(nil)

// FakeClock is a manual clock: AfterFunc callbacks run, on the goroutine
// calling Advance, when Advance moves time past their deadline.
type FakeClock struct {
	mu     sync.Mutex // guards now, seq and timers
	now    time.Time
	seq    uint64
	timers []*fakeTimer
}

type fakeTimer struct {
	c       *FakeClock
	at      time.Time
	seq     uint64
	f       func()
	stopped bool // guarded by c.mu
}

// NewFakeClock starts at a fixed instant.
func NewFakeClock() *FakeClock {
	return &FakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// Now returns the fake time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc schedules f to run when Advance passes now+d.
func (c *FakeClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &fakeTimer{c: c, at: c.now.Add(d), seq: c.seq, f: f}
	c.timers = append(c.timers, t)
	return t
}

// Stop cancels the timer; it reports whether it was still pending.
func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.stopped
	t.stopped = true
	return was
}

// Advance moves time forward by d, running due callbacks in deadline order
// (each with the clock's time set to its deadline). Callbacks may schedule
// more timers; those due within d run too.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	c.mu.Unlock()
	for {
		t := c.popDue(end)
		if t == nil {
			break
		}
		t.f()
	}
	c.mu.Lock()
	c.now = end
	c.mu.Unlock()
}

func (c *FakeClock) popDue(end time.Time) *fakeTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	live := c.timers[:0]
	for _, t := range c.timers {
		if !t.stopped {
			live = append(live, t)
		}
	}
	c.timers = live
	sort.Slice(c.timers, func(i, j int) bool {
		a, b := c.timers[i], c.timers[j]
		if !a.at.Equal(b.at) {
			return a.at.Before(b.at)
		}
		return a.seq < b.seq
	})
	if len(c.timers) == 0 || c.timers[0].at.After(end) {
		return nil
	}
	t := c.timers[0]
	c.timers = c.timers[1:]
	t.stopped = true
	c.now = t.at
	return t
}

// Pending counts timers not yet fired or stopped.
func (c *FakeClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.timers {
		if !t.stopped {
			n++
		}
	}
	return n
}
