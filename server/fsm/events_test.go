package fsm

import (
	"bytes"
	"io"
	"testing"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// eventRecorder is a state.EventPublisher that keeps "Topic/Type".
type eventRecorder struct{ got []string }

func (r *eventRecorder) Publish(index uint64, evs []structs.Event) {
	for _, e := range evs {
		r.got = append(r.got, string(e.Topic)+"/"+e.Type)
	}
}

func (r *eventRecorder) has(want string) bool {
	for _, g := range r.got {
		if g == want {
			return true
		}
	}
	return false
}

// TestFSMPublishesCommittedChangesAndKeepsThePublisherOverARestore: the
// raft entries' writes reach the store's event publisher, which a snapshot
// restore moves to the new store.
func TestFSMPublishesCommittedChangesAndKeepsThePublisherOverARestore(t *testing.T) {
	f := testFSM(t)
	rec := &eventRecorder{}
	f.State().SetEventPublisher(rec)
	job := structstest.Job("web")
	job.Canonicalize()
	eval := &structs.Evaluation{ID: structs.GenerateUUID(), Namespace: "default", JobID: "web", Type: "service", Status: structs.EvalStatusPending}
	if r := applyMsg(t, f, 1, structs.JobRegisterRequestType, &structs.JobRegisterRequest{Job: job, Eval: eval}); r != nil {
		t.Fatal(r)
	}
	if r := applyMsg(t, f, 2, structs.NodeRegisterRequestType, &structs.NodeRegisterRequest{Node: structstest.Node("n1")}); r != nil {
		t.Fatal(r)
	}
	alloc := &structs.Allocation{ID: structs.GenerateUUID(), Namespace: "default", JobID: "web", NodeID: "n1", EvalID: eval.ID,
		TaskGroup: "web", DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusPending}
	if r := applyMsg(t, f, 3, structs.ApplyPlanResultsRequestType, &structs.ApplyPlanResultsRequest{Job: job, AllocsPlaced: []*structs.Allocation{alloc}}); r != nil {
		t.Fatal(r)
	}
	upd := &structs.Allocation{ID: alloc.ID, ClientStatus: structs.AllocClientStatusRunning}
	if r := applyMsg(t, f, 4, structs.AllocClientUpdateRequestType, &structs.AllocUpdateRequest{Alloc: []*structs.Allocation{upd}, UpdatedAt: 99}); r != nil {
		t.Fatal(r)
	}
	for _, want := range []string{"Job/JobRegistered", "Evaluation/JobRegistered", "Node/NodeRegistration",
		"Allocation/PlanResult", "Allocation/AllocationUpdated"} {
		if !rec.has(want) {
			t.Errorf("no %s event in %v", want, rec.got)
		}
	}

	snap, err := f.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	if err := snap.Persist(sink); err != nil {
		t.Fatal(err)
	}
	f2 := testFSM(t)
	rec2 := &eventRecorder{}
	f2.State().SetEventPublisher(rec2)
	if err := f2.Restore(io.NopCloser(bytes.NewReader(sink.Bytes()))); err != nil {
		t.Fatal(err)
	}
	if len(rec2.got) != 0 {
		t.Fatalf("a restore published %v", rec2.got)
	}
	if r := applyMsg(t, f2, 5, structs.NodeUpdateStatusRequestType, &structs.NodeUpdateStatusRequest{NodeID: "n1", Status: structs.NodeStatusDown}); r != nil {
		t.Fatal(r)
	}
	if !rec2.has("Node/NodeEvent") {
		t.Fatalf("after the restore: events %v, want Node/NodeEvent", rec2.got)
	}
}
