package server

import (
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/internal/clock/clocktest"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

func TestHeartbeatTTL(t *testing.T) {
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
		if got := HeartbeatTTL(c.nodes, c.min, DefaultMaxHeartbeatsPerSecond, c.stagger); got != c.want {
			t.Errorf("HeartbeatTTL(%d, %v, %v) = %v, want %v", c.nodes, c.min, c.stagger, got, c.want)
		}
	}
}

func TestHeartbeaterTimers(t *testing.T) {
	clock := clocktest.NewFakeClock()
	var mu sync.Mutex
	var expired []string
	h := newHeartbeater(clock, 10*time.Second, 5*time.Second, 0, func(id string) {
		mu.Lock()
		expired = append(expired, id)
		mu.Unlock()
	})
	h.stagger = func() float64 { return 0 }
	if ttl := h.Reset("a", 1); ttl != 10*time.Second || h.tracked() != 0 {
		t.Fatalf("disabled: ttl %v, %d timers", ttl, h.tracked())
	}
	h.setEnabled(true)
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
	h.setEnabled(false)
	clock.Advance(time.Minute)
	if len(expired) != 1 || h.tracked() != 0 {
		t.Fatalf("disabled heartbeater fired: %v", expired)
	}
}

func TestMissedHeartbeatMarksNodeDownAndReplaces(t *testing.T) {
	clock := clocktest.NewFakeClock()
	s := testServer(t, func(c *Config) { c.Clock = clock; c.MinHeartbeatTTL = time.Second; c.HeartbeatGrace = time.Second })
	registerNode(t, s, "n1")
	var resp structs.JobRegisterResponse
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: mockJob("web")}, &resp); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "alloc placed", func(st *state.StateStore, ws memdb.WatchSet) bool {
		return len(runningAllocs(st, ws, "web")) == 1
	})
	// A heartbeat keeps the node alive past its first TTL.
	clock.Advance(1500 * time.Millisecond)
	var hb structs.NodeUpdateResponse
	if err := s.RPC(structs.NodeUpdateStatusRPC, &structs.NodeUpdateStatusRequest{NodeID: "n1", SecretID: "secret-n1", Status: structs.NodeStatusReady}, &hb); err != nil || hb.HeartbeatTTL < time.Second {
		t.Fatalf("heartbeat: %v %v", hb.HeartbeatTTL, err)
	}
	clock.Advance(1500 * time.Millisecond)
	if n, _ := s.State().NodeByID(nil, "n1"); n.Status != structs.NodeStatusReady {
		t.Fatalf("node down despite heartbeat")
	}
	clock.Advance(10 * time.Second) // TTL (<= 2s with stagger) + grace missed
	waitState(t, s, "node down and alloc lost", func(st *state.StateStore, ws memdb.WatchSet) bool {
		n, _ := st.NodeByID(ws, "n1")
		allocs, _ := st.AllocsByJob(ws, "default", "web")
		lost := false
		for _, a := range allocs {
			lost = lost || a.ClientStatus == structs.AllocClientStatusLost
		}
		return n.Status == structs.NodeStatusDown && lost
	})
	// The node comes back: its heartbeat brings it to ready, and the job
	// gets its alloc back.
	if err := s.RPC(structs.NodeUpdateStatusRPC, &structs.NodeUpdateStatusRequest{NodeID: "n1", SecretID: "secret-n1", Status: structs.NodeStatusReady}, &hb); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "alloc replaced", func(st *state.StateStore, ws memdb.WatchSet) bool {
		return len(runningAllocs(st, ws, "web")) == 1
	})
}
