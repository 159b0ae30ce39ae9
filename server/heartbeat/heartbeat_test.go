package heartbeat

import (
	"sync"
	"testing"
	"time"

	"github.com/nomadish/nomadish/internal/clock/clocktest"
)

func TestTTL(t *testing.T) {
	cases := []struct {
		nodes   int
		min     time.Duration
		stagger float64
		want    time.Duration
	}{
		{1, 10 * time.Second, 0, 10 * time.Second},
		{500, 10 * time.Second, 0, 10 * time.Second},
		{1000, 10 * time.Second, 0, 20 * time.Second},
		{1000, 10 * time.Second, 0.5, 30 * time.Second},
		{0, time.Second, 0.25, 1250 * time.Millisecond},
	}
	for _, c := range cases {
		if got := TTL(c.nodes, c.min, DefaultMaxPerSecond, c.stagger); got != c.want {
			t.Errorf("TTL(%d, %v, %v) = %v, want %v", c.nodes, c.min, c.stagger, got, c.want)
		}
	}
}

func TestTimers(t *testing.T) {
	clock := clocktest.NewFakeClock()
	var mu sync.Mutex
	var expired []string
	h := New(clock, 10*time.Second, 5*time.Second, 0, func(id string) {
		mu.Lock()
		expired = append(expired, id)
		mu.Unlock()
	})
	h.stagger = func() float64 { return 0 }
	if ttl := h.Reset("a", 1); ttl != 10*time.Second || h.Tracked() != 0 {
		t.Fatalf("disabled: ttl %v, %d timers", ttl, h.Tracked())
	}
	h.SetEnabled(true)
	h.Reset("a", 1)
	h.Reset("b", 1)
	clock.Advance(14 * time.Second)
	h.Reset("b", 1) // b heartbeats in time
	clock.Advance(2 * time.Second)
	mu.Lock()
	if len(expired) != 1 || expired[0] != "a" {
		t.Fatalf("expired %v, want [a]", expired)
	}
	mu.Unlock()
	h.Remove("b")
	clock.Advance(time.Minute)
	if len(expired) != 1 {
		t.Fatalf("removed timer fired: %v", expired)
	}
	h.Reset("c", 1)
	h.SetEnabled(false)
	clock.Advance(time.Minute)
	if len(expired) != 1 || h.Tracked() != 0 {
		t.Fatalf("disabled heartbeater fired: %v", expired)
	}
}
