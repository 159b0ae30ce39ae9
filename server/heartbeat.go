package server

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/nomadish/nomadish/internal/clock"
)

// DefaultMaxHeartbeatsPerSecond caps the heartbeat rate the TTLs aim for,
// as in Nomad: TTLs grow with the node count so the leader sees at most
// this many heartbeats a second (Config.MaxHeartbeatsPerSecond).
const DefaultMaxHeartbeatsPerSecond = 50.0

// HeartbeatTTL is the pure TTL rule: numNodes/maxPerSecond seconds, at least
// minTTL, plus a stagger of stagger*ttl (stagger in [0,1), random in
// production) so that clients do not heartbeat in lockstep.
func HeartbeatTTL(numNodes int, minTTL time.Duration, maxPerSecond, stagger float64) time.Duration {
	ttl := time.Duration(float64(numNodes) / maxPerSecond * float64(time.Second))
	if ttl < minTTL {
		ttl = minTTL
	}
	return ttl + time.Duration(stagger*float64(ttl))
}

// heartbeater holds one timer per node on the leader. A timer that fires
// (TTL + grace without a heartbeat) calls expire from the clock's goroutine.
type heartbeater struct {
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

// newHeartbeater returns a disabled heartbeater; perSec <= 0 means
// DefaultMaxHeartbeatsPerSecond.
func newHeartbeater(clk clock.Clock, minTTL, grace time.Duration, perSec float64, expire func(string)) *heartbeater {
	if perSec <= 0 {
		perSec = DefaultMaxHeartbeatsPerSecond
	}
	return &heartbeater{clock: clk, minTTL: minTTL, grace: grace, perSec: perSec, expire: expire,
		stagger: rand.Float64, timers: map[string]*hbTimer{}}
}

// setEnabled turns timers on (leadership) or off; disabling stops them all.
func (h *heartbeater) setEnabled(on bool) {
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
func (h *heartbeater) Reset(nodeID string, numNodes int) time.Duration {
	ttl := HeartbeatTTL(numNodes, h.minTTL, h.perSec, h.stagger())
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
func (h *heartbeater) fire(nodeID string, t *hbTimer) {
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

// arm (re)starts nodeID's timer to fire after exactly d (no TTL, no
// grace): the end of a disconnected node's window. Does nothing while
// disabled.
func (h *heartbeater) arm(nodeID string, d time.Duration) {
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
func (h *heartbeater) Remove(nodeID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t, ok := h.timers[nodeID]; ok {
		t.t.Stop()
		delete(h.timers, nodeID)
	}
}

// tracked reports how many timers run.
func (h *heartbeater) tracked() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.timers)
}
