// Package heartbeat holds the leader's per-node heartbeat timers and the TTL
// rule: a node that sends no heartbeat within its TTL plus the grace is
// handed to the expire callback (the server marks it down or disconnected).
// The timers run on the server's one clock (internal/clock).
package heartbeat

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/nomadish/nomadish/internal/clock"
)

// DefaultMaxPerSecond caps the heartbeat rate the TTLs aim for,
// as in Nomad: TTLs grow with the node count so the leader sees at most
// this many heartbeats a second (Config.MaxHeartbeatsPerSecond).
const DefaultMaxPerSecond = 50.0

// TTL is the pure TTL rule: numNodes/maxPerSecond seconds, at least
// minTTL, plus a stagger of stagger*ttl (stagger in [0,1), random in
// production) so that clients do not heartbeat in lockstep.
func TTL(numNodes int, minTTL time.Duration, maxPerSecond, stagger float64) time.Duration {
	ttl := time.Duration(float64(numNodes) / maxPerSecond * float64(time.Second))
	if ttl < minTTL {
		ttl = minTTL
	}
	return ttl + time.Duration(stagger*float64(ttl))
}

// Timers holds one timer per node on the leader. A timer that fires
// (TTL + grace without a heartbeat) calls expire from the clock's goroutine.
type Timers struct {
	clock   clock.Clock
	minTTL  time.Duration
	grace   time.Duration
	perSec  float64 // max heartbeats per second
	expire  func(nodeID string)
	stagger func() float64

	mu      sync.Mutex
	enabled bool                // guarded by mu
	timers  map[string]*hbTimer // guarded by mu
}

// hbTimer is one node's timer; its identity tells a current timer from a
// replaced one.
type hbTimer struct{ t clock.Timer }

// New returns a disabled Timers; perSec <= 0 means
// DefaultMaxPerSecond.
func New(clk clock.Clock, minTTL, grace time.Duration, perSec float64, expire func(string)) *Timers {
	if perSec <= 0 {
		perSec = DefaultMaxPerSecond
	}
	return &Timers{clock: clk, minTTL: minTTL, grace: grace, perSec: perSec, expire: expire,
		stagger: rand.Float64, timers: map[string]*hbTimer{}}
}

// SetEnabled turns timers on (leadership) or off; disabling stops them all.
func (h *Timers) SetEnabled(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.enabled = on
	if !on {
		for id, t := range h.timers {
			t.t.Stop()
			delete(h.timers, id)
		}
	}
}

// Reset restarts nodeID's timer and returns the TTL to hand the client
// (the timer itself runs TTL + grace). While disabled it returns the TTL
// without starting a timer.
func (h *Timers) Reset(nodeID string, numNodes int) time.Duration {
	ttl := TTL(numNodes, h.minTTL, h.perSec, h.stagger())
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.enabled {
		return ttl
	}
	if old, ok := h.timers[nodeID]; ok {
		old.t.Stop()
	}
	ht := &hbTimer{}
	ht.t = h.clock.AfterFunc(ttl+h.grace, func() { h.fire(nodeID, ht) })
	h.timers[nodeID] = ht
	return ttl
}

// fire runs when a timer expires; a timer replaced or stopped meanwhile
// does nothing.
func (h *Timers) fire(nodeID string, t *hbTimer) {
	h.mu.Lock()
	cur, ok := h.timers[nodeID]
	if !ok || cur != t {
		h.mu.Unlock()
		return
	}
	delete(h.timers, nodeID)
	h.mu.Unlock()
	h.expire(nodeID)
}

// Arm (re)starts nodeID's timer to fire after exactly d (no TTL, no
// grace): the end of a disconnected node's window. Does nothing while
// disabled.
func (h *Timers) Arm(nodeID string, d time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.enabled {
		return
	}
	if old, ok := h.timers[nodeID]; ok {
		old.t.Stop()
	}
	ht := &hbTimer{}
	ht.t = h.clock.AfterFunc(d, func() { h.fire(nodeID, ht) })
	h.timers[nodeID] = ht
}

// Remove stops nodeID's timer.
func (h *Timers) Remove(nodeID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t, ok := h.timers[nodeID]; ok {
		t.t.Stop()
		delete(h.timers, nodeID)
	}
}

// Tracked reports how many timers run.
func (h *Timers) Tracked() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.timers)
}
