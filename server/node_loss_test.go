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

// reportRunning sends the client's "running" report for every alloc of
// nodeID.
func reportRunning(t *testing.T, s *Server, nodeID string) {
	t.Helper()
	allocs, _ := s.State().AllocsByNode(nil, nodeID)
	var upd []*structs.Allocation
	for _, a := range allocs {
		c := a.Copy()
		c.ClientStatus = structs.AllocClientStatusRunning
		upd = append(upd, c)
	}
	var resp structs.GenericResponse
	if err := updateAllocsAsNodes(s, upd, &resp); err != nil {
		t.Fatal(err)
	}
}

// TestNodeLossReplacesOnOtherNode: a node that misses its TTL (injected
// clock) goes down; its running alloc becomes lost (desired stop) and is
// replaced on the other node, once; when the node heartbeats again it is
// ready and the lost alloc stays stopped and lost (whatever the client
// reports), with nothing placed on it again.
func TestNodeLossReplacesOnOtherNode(t *testing.T) {
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
	reportRunning(t, s, "n1")
	registerNode(t, s, "n2")
	clock.Advance(1500 * time.Millisecond)
	var hb structs.NodeUpdateResponse
	if err := s.RPC(structs.NodeUpdateStatusRPC, &structs.NodeUpdateStatusRequest{NodeID: "n2", SecretID: "secret-n2", Status: structs.NodeStatusReady}, &hb); err != nil {
		t.Fatal(err)
	}
	clock.Advance(1500 * time.Millisecond) // n1's TTL (<= 2s) + grace (1s) passed; n2 heartbeated
	var lostID string
	waitState(t, s, "n1 down, its alloc lost and replaced on n2", func(st *state.StateStore, ws memdb.WatchSet) bool {
		n1, _ := st.NodeByID(ws, "n1")
		n2, _ := st.NodeByID(ws, "n2")
		allocs, _ := st.AllocsByJob(ws, "default", "web")
		lost, onN2 := 0, 0
		for _, a := range allocs {
			switch {
			case a.NodeID == "n1" && a.ClientStatus == structs.AllocClientStatusLost && a.DesiredStatus == structs.AllocDesiredStatusStop:
				lost++
				lostID = a.ID
			case a.NodeID == "n2" && !a.TerminalStatus():
				onN2++
			}
		}
		return n1.Status == structs.NodeStatusDown && n2.Status == structs.NodeStatusReady && lost == 1 && onN2 == 1 && len(allocs) == 2
	})
	// n1 comes back.
	if err := s.RPC(structs.NodeUpdateStatusRPC, &structs.NodeUpdateStatusRequest{NodeID: "n1", SecretID: "secret-n1", Status: structs.NodeStatusReady}, &hb); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "n1 ready and its evals done", func(st *state.StateStore, ws memdb.WatchSet) bool {
		n1, _ := st.NodeByID(ws, "n1")
		evals, _ := st.EvalsByJob(ws, "default", "web")
		for _, e := range evals {
			if !e.TerminalStatus() {
				return false
			}
		}
		return n1.Status == structs.NodeStatusReady
	})
	// The returning client still reports the lost alloc running until it
	// has stopped it: it stays lost.
	reportRunning(t, s, "n1")
	allocs, _ := s.State().AllocsByJob(nil, "default", "web")
	if len(allocs) != 2 {
		t.Fatalf("%d allocs after n1 came back, want 2", len(allocs))
	}
	for _, a := range allocs {
		if a.ID == lostID && (a.DesiredStatus != structs.AllocDesiredStatusStop || a.ClientStatus != structs.AllocClientStatusLost) {
			t.Fatalf("lost alloc after reconnect: desired %s client %s", a.DesiredStatus, a.ClientStatus)
		}
	}
}
