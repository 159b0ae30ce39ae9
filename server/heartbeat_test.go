package server

import (
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/internal/clock/clocktest"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

func TestMissedHeartbeatMarksNodeDownAndReplaces(t *testing.T) {
	clock := clocktest.NewFakeClock()
	s := testServer(t, func(c *Config) { c.Clock = clock; c.MinHeartbeatTTL = time.Second; c.HeartbeatGrace = time.Second })
	registerNode(t, s, "n1")
	var resp structs.JobRegisterResponse
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: structstest.Job("web")}, &resp); err != nil {
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
