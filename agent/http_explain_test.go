package agent

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// PUT /v1/job/:id/plan passes WhyNotNode/WhyNotGroup to Job.Plan and
// returns NodeVerdicts.
func TestJobPlanWhyNotNode(t *testing.T) {
	f := newFakeRPC().on(structs.JobPlanRPC, func(args, reply any) error {
		reply.(*structs.JobPlanResponse).NodeVerdicts = map[string]*structs.NodeVerdict{
			"g": {NodeID: "n1", Failures: []string{"node is draining"}},
		}
		return nil
	})
	s := newHTTPServer(httpDeps{RPC: f})
	body := `{"Job": {"ID": "example", "TaskGroups": [{"Name": "g", "Tasks": [{"Name": "t", "Driver": "raw_exec"}]}]},
	  "WhyNotNode": "n1", "WhyNotGroup": "g"}`
	rec := do(t, s, "PUT", "/v1/job/example/plan", body)
	wantStatus(t, rec, 200, `"NodeVerdicts":{"g":{"NodeID":"n1"`)
	calls := f.callsTo(structs.JobPlanRPC)
	if len(calls) != 1 {
		t.Fatalf("plan calls = %d", len(calls))
	}
	if args := calls[0].(*structs.JobPlanRequest); args.WhyNotNode != "n1" || args.WhyNotGroup != "g" {
		t.Fatalf("args %+v", args)
	}
}
