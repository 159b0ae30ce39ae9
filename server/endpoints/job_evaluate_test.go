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
		if m, ok := msg.(*structs.EvalUpdateRequest); ok {
			if mt != structs.EvalUpdateRequestType {
				t.Fatalf("eval update with type %d", mt)
			}
			if err := d.State().UpsertEvals(500, m.Evals); err != nil {
				return 0, nil, err
			}
			return 500, nil, nil
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
	wantCode(t, e.Evaluate(&structs.JobEvaluateRequest{JobID: "web", EvalOptions: structs.EvalOptions{ForceReschedule: true}}, &r), 400, "force-reschedule")
	register(t, e, parameterizedJob())
	wantCode(t, e.Evaluate(&structs.JobEvaluateRequest{JobID: "report"}, &r), 400, "parameterized")
}
