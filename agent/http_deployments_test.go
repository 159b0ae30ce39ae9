package agent

import (
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func TestJobLatestDeploymentNullAndPromoteBody(t *testing.T) {
	f := newFakeRPC().on(structs.DeploymentByJobRPC, func(args, reply any) error { return nil }).
		on(structs.DeploymentPromoteRPC, func(args, reply any) error { return nil })
	s := newHTTPServer(httpDeps{RPC: f})
	rec := do(t, s, "GET", "/v1/job/web/deployment", "")
	wantStatus(t, rec, 200, "null")
	if got := strings.TrimSpace(rec.Body.String()); got != "null" {
		t.Fatalf("body %q, want null", got)
	}
	wantStatus(t, do(t, s, "GET", "/v1/job/web/deployments", ""), 200, "[]")

	wantStatus(t, do(t, s, "POST", "/v1/deployment/promote/d1", `{"DeploymentID":"d2"}`), 400, "does not match")
	wantStatus(t, do(t, s, "POST", "/v1/deployment/promote/d1", `{"DeploymentID":"d1","Groups":["g"]}`), 200, "EvalID")
	calls := f.callsTo(structs.DeploymentPromoteRPC)
	if len(calls) != 1 {
		t.Fatalf("%d promote calls", len(calls))
	}
	if req := calls[0].(*structs.DeploymentPromoteRequest); req.DeploymentID != "d1" || req.All || len(req.Groups) != 1 {
		t.Fatalf("promote request %+v", req)
	}
}
