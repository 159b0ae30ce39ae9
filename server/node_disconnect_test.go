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

func TestExpiredStatus(t *testing.T) {
	cases := []struct {
		current string
		window  time.Duration
		want    string
	}{
		{structs.NodeStatusReady, 0, structs.NodeStatusDown},
		{structs.NodeStatusReady, time.Minute, structs.NodeStatusDisconnected},
		{structs.NodeStatusInit, time.Minute, structs.NodeStatusDisconnected},
		{structs.NodeStatusDisconnected, time.Minute, structs.NodeStatusDown}, // the window passed
		{structs.NodeStatusDown, time.Minute, structs.NodeStatusDown},
	}
	for _, c := range cases {
		if got := expiredStatus(c.current, c.window); got != c.want {
			t.Errorf("expiredStatus(%s, %v) = %s, want %s", c.current, c.window, got, c.want)
		}
	}
}

// disconnectTest starts a server on a fake clock (TTL 1s, grace 1s) with
// node n1 running job web (disconnect { lost_after = 1m, reconcile =
// keep_original }) and node n2 idle, then lets n1 miss its heartbeat
// while n2 heartbeats. It returns once n1 is disconnected, its alloc
// unknown and replaced on n2; the original alloc's ID is returned.
func disconnectTest(t *testing.T) (*Server, func(time.Duration), string) {
	clock := clocktest.NewFakeClock()
	s := testServer(t, func(c *Config) { c.Clock = clock; c.MinHeartbeatTTL = time.Second; c.HeartbeatGrace = time.Second })
	registerNode(t, s, "n1")
	job := structstest.Job("web")
	job.TaskGroups[0].Disconnect = &structs.DisconnectStrategy{LostAfter: time.Minute, Reconcile: structs.ReconcileKeepOriginal}
	var resp structs.JobRegisterResponse
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: job}, &resp); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "alloc placed", func(st *state.StateStore, ws memdb.WatchSet) bool {
		return len(runningAllocs(st, ws, "web")) == 1
	})
	reportRunning(t, s, "n1")
	orig := runningAllocs(s.State(), nil, "web")[0].ID
	registerNode(t, s, "n2")
	heartbeat := func(id string) {
		var hb structs.NodeUpdateResponse
		if err := s.RPC(structs.NodeUpdateStatusRPC, &structs.NodeUpdateStatusRequest{NodeID: id, SecretID: "secret-" + id, Status: structs.NodeStatusReady}, &hb); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(1500 * time.Millisecond)
	heartbeat("n2")
	clock.Advance(1500 * time.Millisecond)
	heartbeat("n2")
	waitState(t, s, "n1 disconnected, its alloc unknown and replaced on n2", func(st *state.StateStore, ws memdb.WatchSet) bool {
		n1, _ := st.NodeByID(ws, "n1")
		a, _ := st.AllocByID(ws, orig)
		return n1.Status == structs.NodeStatusDisconnected && a.ClientStatus == structs.AllocClientStatusUnknown &&
			a.DesiredStatus == structs.AllocDesiredStatusRun && liveOn(st, ws, "web", "n2") == 1
	})
	// advance moves the clock in 1s steps, n2 heartbeating at each.
	advance := func(d time.Duration) {
		for ; d > 0; d -= time.Second {
			clock.Advance(time.Second)
			heartbeat("n2")
		}
	}
	return s, advance, orig
}

// liveOn counts the job's live allocs on node.
func liveOn(st *state.StateStore, ws memdb.WatchSet, job, node string) int {
	n := 0
	for _, a := range runningAllocs(st, ws, job) {
		if a.NodeID == node {
			n++
		}
	}
	return n
}

// TestDisconnectedNodeReconnects: the node returns within lost_after; it
// is ready again, its original alloc runs on (keep_original) and the
// replacement is stopped.
func TestDisconnectedNodeReconnects(t *testing.T) {
	s, advance, orig := disconnectTest(t)
	advance(10 * time.Second)
	var hb structs.NodeUpdateResponse
	if err := s.RPC(structs.NodeUpdateStatusRPC, &structs.NodeUpdateStatusRequest{NodeID: "n1", SecretID: "secret-n1", Status: structs.NodeStatusReady}, &hb); err != nil {
		t.Fatal(err)
	}
	reportRunning(t, s, "n1")
	waitState(t, s, "n1 ready, the original running and the replacement stopped", func(st *state.StateStore, ws memdb.WatchSet) bool {
		n1, _ := st.NodeByID(ws, "n1")
		a, _ := st.AllocByID(ws, orig)
		allocs, _ := st.AllocsByJob(ws, "default", "web")
		return n1.Status == structs.NodeStatusReady && a.ClientStatus == structs.AllocClientStatusRunning &&
			a.DesiredStatus == structs.AllocDesiredStatusRun && liveOn(st, ws, "web", "n2") == 0 && len(allocs) == 2
	})
}

// TestDisconnectedNodeLostAfterWindow: the node stays away past
// lost_after; it goes down, its unknown alloc becomes lost, and the
// replacement stays the only live alloc (nothing placed twice).
func TestDisconnectedNodeLostAfterWindow(t *testing.T) {
	s, advance, orig := disconnectTest(t)
	evals, _ := s.State().EvalsByJob(nil, "default", "web")
	followup := false
	for _, e := range evals {
		followup = followup || (e.TriggeredBy == structs.EvalTriggerMaxDisconnectTimeout && !e.WaitUntil.IsZero())
	}
	if !followup {
		t.Fatalf("no %s follow-up eval among %d evals", structs.EvalTriggerMaxDisconnectTimeout, len(evals))
	}
	advance(70 * time.Second) // past the 1m window
	waitState(t, s, "n1 down, the original lost, the replacement alone", func(st *state.StateStore, ws memdb.WatchSet) bool {
		n1, _ := st.NodeByID(ws, "n1")
		a, _ := st.AllocByID(ws, orig)
		allocs, _ := st.AllocsByJob(ws, "default", "web")
		return n1.Status == structs.NodeStatusDown && a.ClientStatus == structs.AllocClientStatusLost &&
			len(runningAllocs(st, ws, "web")) == 1 && liveOn(st, ws, "web", "n2") == 1 && len(allocs) == 2
	})
}
