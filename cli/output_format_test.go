package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/nomadish/nomadish/structs"
)

// readAPI is a canned agent answering the read commands' endpoints.
func readAPI(t *testing.T) *cannedAPI {
	job := &structs.Job{ID: "web", Name: "web", Namespace: "default", Type: "service", Priority: 50,
		Datacenters: []string{"dc1"}, Status: "running", Version: 3,
		TaskGroups: []*structs.TaskGroup{{Name: "g", Count: 2}}}
	jobs := []*structs.JobListStub{{ID: "web", Name: "web", Namespace: "default", Type: "service", Priority: 50, Status: "running"}}
	alloc := &structs.Allocation{ID: allocID, Name: "web.g[0]", JobID: "web", TaskGroup: "g", NodeID: nodeID,
		ClientStatus: "running", DesiredStatus: "run", Namespace: "default"}
	allocs := []*structs.AllocListStub{{ID: allocID, JobID: "web", TaskGroup: "g", NodeID: nodeID, ClientStatus: "running"}}
	node := &structs.Node{ID: nodeID, Name: "n1", Datacenter: "dc1", Status: "ready", NodePool: "default"}
	nodes := []*structs.NodeListStub{{ID: nodeID, Name: "n1", Datacenter: "dc1", Status: "ready", NodePool: "default"}}
	eval := &structs.Evaluation{ID: evalID, JobID: "web", Status: "complete", Type: "service", Priority: 50, TriggeredBy: "job-register"}
	dep := &structs.Deployment{ID: "d1d1d1d1-0000-4000-8000-000000000005", JobID: "web", JobVersion: 3, Status: "successful"}
	return newCannedAPI(t, map[string]any{
		"GET /v1/jobs":                                  jobs,
		"GET /v1/job/web":                               job,
		"GET /v1/job/web/versions":                      structs.JobVersionsResponse{Versions: []*structs.Job{job}},
		"GET /v1/job/web/allocations":                   allocs,
		"GET /v1/job/web/evaluations":                   []*structs.Evaluation{eval},
		"GET /v1/job/web/deployments":                   []*structs.Deployment{dep},
		"GET /v1/job/web/deployment":                    dep,
		"GET /v1/allocations":                           allocs,
		"GET /v1/allocation/" + allocID:                 alloc,
		"GET /v1/nodes":                                 nodes,
		"GET /v1/node/" + nodeID:                        node,
		"GET /v1/evaluations":                           []*structs.Evaluation{eval},
		"GET /v1/evaluation/" + evalID:                  eval,
		"GET /v1/deployments":                           []*structs.Deployment{dep},
		"GET /v1/deployment/" + dep.ID:                  dep,
		"GET /v1/namespaces":                            []*structs.Namespace{{Name: "default", Description: "the default"}},
		"GET /v1/namespace/default":                     &structs.Namespace{Name: "default", Description: "the default"},
		"GET /v1/node/pools":                            []*structs.NodePool{{Name: "default", Description: "d"}},
		"GET /v1/node/pool/default":                     &structs.NodePool{Name: "default", Description: "d"},
		"GET /v1/vars":                                  []*structs.VariableMetadata{{Namespace: "default", Path: "a/b"}},
		"GET /v1/evaluation/" + evalID + "/allocations": allocs,
	})
}

// decodeStrict decodes the command's stdout into v, failing on trailing text.
func decodeOut(t *testing.T, out string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decoding %T: %v\n%s", v, err, out)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value in:\n%s", out)
	}
}

func TestJSONOutputDecodesIntoAPITypes(t *testing.T) {
	c := readAPI(t)
	cases := []struct {
		args  []string
		into  func() any
		check func(t *testing.T, v any)
	}{
		{[]string{"job", "status", "-json"}, func() any { return &[]*api.JobListStub{} }, func(t *testing.T, v any) {
			l := *v.(*[]*api.JobListStub)
			if len(l) != 1 || l[0].ID != "web" || l[0].Status != "running" || l[0].Priority != 50 {
				t.Fatalf("jobs: %+v", l)
			}
		}},
		{[]string{"job", "status", "-json", "web"}, func() any { return &api.Job{} }, func(t *testing.T, v any) {
			j := v.(*api.Job)
			if *j.ID != "web" || *j.Version != 3 || len(j.TaskGroups) != 1 || *j.TaskGroups[0].Count != 2 {
				t.Fatalf("job: %+v", j)
			}
		}},
		{[]string{"job", "inspect", "-json", "web"}, func() any { return &api.Job{} }, func(t *testing.T, v any) {
			if j := v.(*api.Job); *j.Type != "service" || j.Datacenters[0] != "dc1" {
				t.Fatalf("job: %+v", j)
			}
		}},
		{[]string{"job", "history", "-json", "web"}, func() any { return &[]*api.Job{} }, func(t *testing.T, v any) {
			if l := *v.(*[]*api.Job); len(l) != 1 || *l[0].Version != 3 {
				t.Fatalf("versions: %+v", l)
			}
		}},
		{[]string{"job", "allocs", "-json", "web"}, func() any { return &[]*api.AllocationListStub{} }, func(t *testing.T, v any) {
			if l := *v.(*[]*api.AllocationListStub); len(l) != 1 || l[0].ID != allocID || l[0].ClientStatus != "running" {
				t.Fatalf("allocs: %+v", l)
			}
		}},
		{[]string{"job", "deployments", "-json", "web"}, func() any { return &[]*api.Deployment{} }, func(t *testing.T, v any) {
			if l := *v.(*[]*api.Deployment); len(l) != 1 || l[0].JobVersion != 3 {
				t.Fatalf("deployments: %+v", l)
			}
		}},
		{[]string{"alloc", "status", "-json", allocID}, func() any { return &api.Allocation{} }, func(t *testing.T, v any) {
			if a := v.(*api.Allocation); a.ID != allocID || a.TaskGroup != "g" || a.NodeID != nodeID {
				t.Fatalf("alloc: %+v", a)
			}
		}},
		{[]string{"node", "status", "-json"}, func() any { return &[]*api.NodeListStub{} }, func(t *testing.T, v any) {
			if l := *v.(*[]*api.NodeListStub); len(l) != 1 || l[0].ID != nodeID || l[0].Status != "ready" {
				t.Fatalf("nodes: %+v", l)
			}
		}},
		{[]string{"node", "status", "-json", nodeID}, func() any { return &api.Node{} }, func(t *testing.T, v any) {
			if n := v.(*api.Node); n.Name != "n1" || n.Datacenter != "dc1" {
				t.Fatalf("node: %+v", n)
			}
		}},
		{[]string{"eval", "status", "-json", evalID}, func() any { return &api.Evaluation{} }, func(t *testing.T, v any) {
			if e := v.(*api.Evaluation); e.ID != evalID || e.TriggeredBy != "job-register" {
				t.Fatalf("eval: %+v", e)
			}
		}},
		{[]string{"eval", "list", "-json"}, func() any { return &[]*api.Evaluation{} }, func(t *testing.T, v any) {
			if l := *v.(*[]*api.Evaluation); len(l) != 1 || l[0].Status != "complete" {
				t.Fatalf("evals: %+v", l)
			}
		}},
		{[]string{"deployment", "list", "-json"}, func() any { return &[]*api.Deployment{} }, func(t *testing.T, v any) {
			if l := *v.(*[]*api.Deployment); len(l) != 1 || l[0].Status != "successful" {
				t.Fatalf("deployments: %+v", l)
			}
		}},
		{[]string{"deployment", "status", "-json", "d1d1d1d1-0000-4000-8000-000000000005"}, func() any { return &api.Deployment{} }, func(t *testing.T, v any) {
			if d := v.(*api.Deployment); d.JobID != "web" {
				t.Fatalf("deployment: %+v", d)
			}
		}},
		{[]string{"namespace", "list", "-json"}, func() any { return &[]*api.Namespace{} }, func(t *testing.T, v any) {
			if l := *v.(*[]*api.Namespace); len(l) != 1 || l[0].Description != "the default" {
				t.Fatalf("namespaces: %+v", l)
			}
		}},
		{[]string{"namespace", "status", "-json", "default"}, func() any { return &api.Namespace{} }, func(t *testing.T, v any) {
			if n := v.(*api.Namespace); n.Name != "default" {
				t.Fatalf("namespace: %+v", n)
			}
		}},
		{[]string{"node", "pool", "list", "-json"}, func() any { return &[]*api.NodePool{} }, func(t *testing.T, v any) {
			if l := *v.(*[]*api.NodePool); len(l) != 1 || l[0].Name != "default" {
				t.Fatalf("pools: %+v", l)
			}
		}},
		{[]string{"node", "pool", "info", "-json", "default"}, func() any { return &api.NodePool{} }, func(t *testing.T, v any) {
			if p := v.(*api.NodePool); p.Description != "d" {
				t.Fatalf("pool: %+v", p)
			}
		}},
		{[]string{"var", "list", "-json"}, func() any { return &[]*api.VariableMetadata{} }, func(t *testing.T, v any) {
			if l := *v.(*[]*api.VariableMetadata); len(l) != 1 || l[0].Path != "a/b" {
				t.Fatalf("vars: %+v", l)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := c.run(tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			v := tc.into()
			decodeOut(t, out, v)
			tc.check(t, v)
		})
	}
}

func TestTemplateOutput(t *testing.T) {
	c := readAPI(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"job", "status", "-t", "{{range .}}{{.ID}}:{{.Status}} {{end}}"}, "web:running "},
		{[]string{"job", "inspect", "-t", "{{.ID}} v{{.Version}}", "web"}, "web v3"},
		{[]string{"alloc", "status", "-t", "{{.TaskGroup}}", allocID}, "g"},
		{[]string{"node", "status", "-t", "{{range .}}{{.Name}}{{end}}"}, "n1"},
		{[]string{"eval", "status", "-t", "{{.TriggeredBy}}", evalID}, "job-register"},
		{[]string{"namespace", "list", "-t", "{{range .}}{{.Name}}{{end}}"}, "default"},
	} {
		code, out, errOut := c.run(tc.args...)
		if code != 0 || out != tc.want {
			t.Errorf("%v: exit %d, out %q (want %q), err %s", tc.args, code, out, tc.want, errOut)
		}
	}
}

func TestJSONAndTemplateTogetherRefused(t *testing.T) {
	c := readAPI(t)
	for _, args := range [][]string{
		{"job", "status", "-json", "-t", "{{.}}"},
		{"job", "status", "-json", "-t", "{{.}}", "web"},
		{"alloc", "status", "-json", "-t", "{{.}}", allocID},
		{"node", "status", "-json", "-t", "x"},
		{"eval", "list", "-json", "-t", "x"},
		{"deployment", "list", "-json", "-t", "x"},
	} {
		code, out, errOut := c.run(args...)
		if code != 1 || !strings.Contains(errOut, "both -json and -t are not allowed") || out != "" {
			t.Errorf("%v: exit %d, out %q, err %q", args, code, out, errOut)
		}
	}
}

func TestTemplateErrorExits1(t *testing.T) {
	c := readAPI(t)
	code, _, errOut := c.run("job", "inspect", "-t", "{{.NoSuchField}}", "web")
	if code != 1 || !strings.Contains(errOut, "template") {
		t.Fatalf("exit %d, err %q", code, errOut)
	}
}

// As Nomad's, -t sees the official client's types: *api.Job, []*api.NodeListStub.
func TestTemplateSeesAPITypes(t *testing.T) {
	c := readAPI(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"job", "inspect", "-t", `{{printf "%T" .}} {{.Name}}`, "web"}, "*api.Job web"},
		{[]string{"job", "status", "-t", `{{printf "%T" .}}`}, "[]*api.JobListStub"},
		{[]string{"node", "status", "-t", `{{printf "%T" .}}`}, "[]*api.NodeListStub"},
		{[]string{"alloc", "status", "-t", `{{printf "%T" .}}`, allocID}, "*api.Allocation"},
		{[]string{"job", "history", "-t", `{{range .}}{{.Version}}{{end}}`, "web"}, "3"},
	} {
		code, out, errOut := c.run(tc.args...)
		if code != 0 || out != tc.want {
			t.Errorf("%v: exit %d, %q (want %q) %s", tc.args, code, out, tc.want, errOut)
		}
	}
}
