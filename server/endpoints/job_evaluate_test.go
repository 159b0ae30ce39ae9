package endpoints

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

func TestJobEvaluate(t *testing.T) {
	d, e := jobDeps(t)
	inner := d.Apply
	d.Apply = func(mt structs.MessageType, msg any) (uint64, any, error) {
		switch m := msg.(type) {
		case *structs.EvalUpdateRequest:
			if mt != structs.EvalUpdateRequestType {
				t.Fatalf("eval update with type %d", mt)
			}
			return 500, nil, d.State().UpsertEvals(500, m.Evals)
		case *structs.AllocUpdateDesiredTransitionRequest:
			if mt != structs.AllocUpdateDesiredTransitionRequestType {
				t.Fatalf("desired transitions with type %d", mt)
			}
			return 600, nil, d.State().UpdateAllocsDesiredTransitions(600, m.Allocs, m.Evals)
		}
		return inner(mt, msg)
	}
	register(t, e, structstest.Job("web"))
	var r structs.JobRegisterResponse
	if err := e.Evaluate(&structs.JobEvaluateRequest{JobID: "web"}, &r); err != nil {
		t.Fatal(err)
	}
	if r.EvalID == "" || r.EvalCreateIndex != 500 || r.Index != 500 {
		t.Fatalf("reply %+v", r)
	}
	ev, err := d.State().EvalByID(nil, r.EvalID)
	if err != nil || ev == nil {
		t.Fatalf("eval %v: %v", ev, err)
	}
	if ev.JobID != "web" || ev.Status != structs.EvalStatusPending || ev.TriggeredBy != structs.EvalTriggerJobRegister || ev.Namespace != "default" {
		t.Fatalf("eval %+v", ev)
	}

	wantCode(t, e.Evaluate(&structs.JobEvaluateRequest{JobID: "nope"}, &r), 404, "")

	// -force-reschedule marks the failed allocations not yet replaced, in
	// the eval's raft entry.
	mk := func(id, cs, next string) *structs.Allocation {
		return &structs.Allocation{ID: id, Namespace: "default", JobID: "web", TaskGroup: "web", NodeID: "n1", EvalID: "e0", ClientStatus: cs,
			DesiredStatus: structs.AllocDesiredStatusRun, NextAllocation: next}
	}
	allocs := []*structs.Allocation{mk("failed", "failed", ""), mk("replaced", "failed", "x"), mk("running", "running", "")}
	if err := d.State().UpsertAllocs(550, allocs); err != nil {
		t.Fatal(err)
	}
	if err := e.Evaluate(&structs.JobEvaluateRequest{JobID: "web", EvalOptions: structs.EvalOptions{ForceReschedule: true}}, &r); err != nil {
		t.Fatal(err)
	}
	if r.Index != 600 {
		t.Fatalf("force-reschedule reply %+v", r)
	}
	if ev, _ := d.State().EvalByID(nil, r.EvalID); ev == nil || ev.JobID != "web" {
		t.Fatalf("force-reschedule eval %+v", ev)
	}
	for id, want := range map[string]bool{"failed": true, "replaced": false, "running": false} {
		a, _ := d.State().AllocByID(nil, id)
		if a == nil || a.DesiredTransition.ShouldForceReschedule() != want {
			t.Errorf("alloc %s: %+v, want forced=%v", id, a, want)
		}
	}
	register(t, e, parameterizedJob())
	wantCode(t, e.Evaluate(&structs.JobEvaluateRequest{JobID: "report"}, &r), 400, "parameterized")
}
