package cli

import (
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/nomadish/nomadish/structs"
)

// The ACL, scaling and service read commands' -json also decodes into the
// official client's types, and their -t sees the same object.
func TestJSONOutputMoreAPITypes(t *testing.T) {
	acc := "acc00000-0000-4000-8000-000000000000"
	c := newCannedAPI(t, map[string]any{
		"GET /v1/acl/policies":     []*structs.ACLPolicyListStub{{Name: "readonly", Description: "reads"}},
		"GET /v1/acl/token/" + acc: &structs.ACLToken{AccessorID: acc, Name: "ci", Type: "client", Policies: []string{"readonly"}, CreateTime: fixedNow},
		"GET /v1/acl/tokens":       []*structs.ACLToken{{AccessorID: acc, Name: "ci", Type: "client", CreateTime: fixedNow}},
		"GET /v1/scaling/policies": []*structs.ScalingPolicyListStub{{ID: "p1", Enabled: true, Type: "horizontal", Target: map[string]string{"Job": "web"}}},
		"GET /v1/services": []*structs.ServiceRegistrationListStub{{Namespace: "default",
			Services: []*structs.ServiceRegistrationStub{{ServiceName: "db", Tags: []string{"a"}}}}},
	})
	run := func(v any, args ...string) {
		t.Helper()
		code, out, errOut := c.run(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		decodeOut(t, out, v)
	}
	var pols []*api.ACLPolicyListStub
	if run(&pols, "acl", "policy", "list", "-json"); len(pols) != 1 || pols[0].Name != "readonly" {
		t.Fatalf("policies %+v", pols)
	}
	var tok api.ACLToken
	if run(&tok, "acl", "token", "info", "-json", acc); tok.AccessorID != acc || tok.Policies[0] != "readonly" || !tok.CreateTime.Equal(fixedNow) {
		t.Fatalf("token %+v", tok)
	}
	var toks []*api.ACLTokenListStub
	if run(&toks, "acl", "token", "list", "-json"); len(toks) != 1 || toks[0].Name != "ci" {
		t.Fatalf("tokens %+v", toks)
	}
	var sps []*api.ScalingPolicyListStub
	if run(&sps, "scaling", "policy", "list", "-json"); len(sps) != 1 || sps[0].Target["Job"] != "web" || !sps[0].Enabled {
		t.Fatalf("scaling %+v", sps)
	}
	var svcs []*api.ServiceRegistrationListStub
	if run(&svcs, "service", "list", "-json"); len(svcs) != 1 || svcs[0].Services[0].ServiceName != "db" {
		t.Fatalf("services %+v", svcs)
	}
	if code, out, _ := c.run("acl", "token", "info", "-t", "{{.Name}}/{{.Type}}", acc); code != 0 || out != "ci/client" {
		t.Fatalf("-t: %d %q", code, out)
	}
	if code, _, errOut := c.run("acl", "policy", "list", "-json", "-t", "x"); code != 1 || !strings.Contains(errOut, "not allowed") {
		t.Fatalf("both: %d %q", code, errOut)
	}
}
