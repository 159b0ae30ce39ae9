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

// TestStateTimesFollowClock: every time the server stamps into state comes
// from Config.Clock, not the wall clock (the fake clock starts months away
// from it): a node's StatusUpdatedAt on register and on heartbeat expiry,
// the job's eval CreateTime/ModifyTime, the placed allocation's times, the
// node-update eval the expiry creates, and the lost allocation's
// ModifyTime (stamped by the plan applier).
func TestStateTimesFollowClock(t *testing.T) {
	clock := clocktest.NewFakeClock()
	t0 := clock.Now().UnixNano()
	s := testServer(t, func(c *Config) { c.Clock = clock; c.MinHeartbeatTTL = time.Second; c.HeartbeatGrace = time.Second })

	registerNode(t, s, "n1")
	if n, _ := s.State().NodeByID(nil, "n1"); n == nil || n.StatusUpdatedAt != t0 {
		t.Fatalf("registered node: StatusUpdatedAt %v, want the clock's %d", n, t0)
	}

	var reg structs.JobRegisterResponse
	if err := s.RPC(structs.JobRegisterRPC, &structs.JobRegisterRequest{Job: structstest.Job("web")}, &reg); err != nil {
		t.Fatal(err)
	}
	if ev, _ := s.State().EvalByID(nil, reg.EvalID); ev == nil || ev.CreateTime != t0 || ev.ModifyTime != t0 {
		t.Fatalf("register eval %+v: want CreateTime and ModifyTime %d", ev, t0)
	}
	waitState(t, s, "alloc placed", func(st *state.StateStore, ws memdb.WatchSet) bool {
		return len(runningAllocs(st, ws, "web")) == 1
	})
	allocs, _ := s.State().AllocsByJob(nil, "default", "web")
	for _, a := range allocs {
		if a.CreateTime != t0 || a.ModifyTime != t0 {
			t.Fatalf("placed alloc: CreateTime %d ModifyTime %d, want %d", a.CreateTime, a.ModifyTime, t0)
		}
	}

	clock.Advance(10 * time.Second) // n1's TTL (<= 2s) + grace (1s) passes
	t1 := clock.Now().UnixNano()
	waitState(t, s, "n1 down with its node-update eval", func(st *state.StateStore, ws memdb.WatchSet) bool {
		n, _ := st.NodeByID(ws, "n1")
		evals, _ := st.EvalsByJob(ws, "default", "web")
		updates := 0
		for _, e := range evals {
			if e.TriggeredBy == structs.EvalTriggerNodeUpdate {
				updates++
			}
		}
		lost := 0
		allocs, _ := st.AllocsByNode(ws, "n1")
		for _, a := range allocs {
			if a.ClientStatus == structs.AllocClientStatusLost {
				lost++
			}
		}
		return n != nil && n.Status == structs.NodeStatusDown && updates > 0 && lost == 1
	})
	n, _ := s.State().NodeByID(nil, "n1")
	if n.StatusUpdatedAt <= t0 || n.StatusUpdatedAt > t1 {
		t.Fatalf("expired node: StatusUpdatedAt %d, want in (%d, %d] (the fake clock's expiry)", n.StatusUpdatedAt, t0, t1)
	}
	evals, _ := s.State().EvalsByJob(nil, "default", "web")
	for _, e := range evals {
		if e.TriggeredBy == structs.EvalTriggerNodeUpdate && (e.CreateTime != n.StatusUpdatedAt || e.CreateTime > t1) {
			t.Fatalf("node-update eval CreateTime %d, want the expiry's %d", e.CreateTime, n.StatusUpdatedAt)
		}
	}
	lost, _ := s.State().AllocsByNode(nil, "n1")
	if len(lost) != 1 || lost[0].ModifyTime <= t0 || lost[0].ModifyTime > t1 {
		t.Fatalf("lost alloc ModifyTime %d, want in (%d, %d]", lost[0].ModifyTime, t0, t1)
	}
}
