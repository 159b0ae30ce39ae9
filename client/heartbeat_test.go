package client

import (
	"testing"
	"time"
)

func TestHeartbeatInterval(t *testing.T) {
	none := func(int64) int64 { return 0 }
	most := func(n int64) int64 { return n - 1 }
	cases := []struct {
		ttl    time.Duration
		jitter func(int64) int64
		want   time.Duration
	}{
		{10 * time.Second, none, 5 * time.Second},
		{10 * time.Second, most, 4*time.Second + 1},
		{0, none, 5 * time.Second}, // no TTL from the server: the minimum
		{time.Minute, none, 30 * time.Second},
	}
	for _, c := range cases {
		if got := heartbeatInterval(c.ttl, c.jitter); got != c.want {
			t.Errorf("heartbeatInterval(%v) = %v, want %v", c.ttl, got, c.want)
		}
	}
}

func TestNextBackoff(t *testing.T) {
	d := time.Duration(0)
	var seq []time.Duration
	for range 10 {
		d = nextBackoff(d)
		seq = append(seq, d)
	}
	if seq[0] != minRetry || seq[1] != 2*minRetry || seq[9] != maxRetry {
		t.Fatalf("backoff sequence %v", seq)
	}
}

func TestMissedHeartbeat(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	cases := []struct {
		name       string
		lastOK     time.Time
		now        time.Time
		ttl        time.Duration
		prevFailed bool
		want       bool
	}{
		{"first registration", time.Time{}, t0, 10 * time.Second, true, false},
		{"on time", t0, t0.Add(5 * time.Second), 10 * time.Second, false, false},
		{"after a failure", t0, t0.Add(time.Second), 10 * time.Second, true, true},
		{"gap longer than the TTL (stopped process)", t0, t0.Add(11 * time.Second), 10 * time.Second, false, true},
		{"no TTL given: the minimum", t0, t0.Add(9 * time.Second), 0, false, false},
	}
	for _, c := range cases {
		if got := missedHeartbeat(c.lastOK, c.now, c.ttl, c.prevFailed); got != c.want {
			t.Errorf("%s: missedHeartbeat = %v, want %v", c.name, got, c.want)
		}
	}
}
