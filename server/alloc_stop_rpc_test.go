package server

import (
	"testing"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// TestAllocStopReplaces: Alloc.Stop commits the migrate mark and an
// "alloc-stop" eval through raft; the scheduler stops the allocation and
// places a replacement.
func TestAllocStopReplaces(t *testing.T) {
	s := testServer(t, nil)
	registerNode(t, s, "n1")
	registerJob(t, s, structstest.Job("web"))
	waitState(t, s, "1 alloc", func(st *state.StateStore, ws memdb.WatchSet) bool { return len(runningAllocs(st, ws, "web")) == 1 })
	old := runningAllocs(s.State(), nil, "web")[0]

	var reply structs.AllocStopResponse
	err := s.RPC(structs.AllocStopRPC, &structs.AllocStopRequest{AllocID: "no-such-alloc"}, &reply)
	if code, _ := structs.ErrorCode(err); code != structs.ErrCodeNotFound {
		t.Fatalf("unknown alloc: %v", err)
	}
	err = s.RPC(structs.AllocStopRPC, &structs.AllocStopRequest{}, &reply)
	if code, _ := structs.ErrorCode(err); code != structs.ErrCodeBadRequest {
		t.Fatalf("missing ID: %v", err)
	}
	if err := s.RPC(structs.AllocStopRPC, &structs.AllocStopRequest{AllocID: old.ID}, &reply); err != nil {
		t.Fatal(err)
	}
	if reply.EvalID == "" || reply.Index <= old.ModifyIndex {
		t.Fatalf("reply %+v (alloc index %d)", reply, old.ModifyIndex)
	}
	eval, err := s.State().EvalByID(nil, reply.EvalID)
	if err != nil || eval == nil {
		t.Fatalf("eval %s: %v %v", reply.EvalID, eval, err)
	}
	if eval.TriggeredBy != structs.EvalTriggerAllocStop || eval.JobID != "web" || eval.CreateIndex != reply.Index {
		t.Fatalf("eval %+v", eval)
	}
	waitState(t, s, "old alloc stopped, a replacement placed", func(st *state.StateStore, ws memdb.WatchSet) bool {
		live := runningAllocs(st, ws, "web")
		return len(live) == 1 && live[0].ID != old.ID
	})
	stopped, _ := s.State().AllocByID(nil, old.ID)
	if !stopped.DesiredTransition.ShouldMigrate() || stopped.DesiredStatus != structs.AllocDesiredStatusStop ||
		stopped.DesiredDescription != structs.AllocDescriptionMigrating {
		t.Fatalf("stopped alloc: %s %q %+v", stopped.DesiredStatus, stopped.DesiredDescription, stopped.DesiredTransition)
	}
	repl := runningAllocs(s.State(), nil, "web")[0]
	if repl.PreviousAllocation != old.ID {
		t.Fatalf("replacement's previous alloc %q, want %q", repl.PreviousAllocation, old.ID)
	}
}
