package agent

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

func do(t *testing.T, h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	var req *http.Request
	if body == "" {
		req = httptest.NewRequest(method, path, nil)
	} else {
		req = httptest.NewRequest(method, path, strings.NewReader(body))
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func wantStatus(t *testing.T, rec *httptest.ResponseRecorder, code int, bodyHas string) {
	t.Helper()
	if rec.Code != code {
		t.Fatalf("status = %d, want %d; body: %s", rec.Code, code, rec.Body.String())
	}
	if !strings.Contains(rec.Body.String(), bodyHas) {
		t.Fatalf("body %q does not contain %q", rec.Body.String(), bodyHas)
	}
}

func registerOK(f *fakeRPC) *fakeRPC {
	return f.on(structs.JobRegisterRPC, func(args, reply any) error {
		r := reply.(*structs.JobRegisterResponse)
		r.EvalID, r.EvalCreateIndex, r.JobModifyIndex, r.Index = "eval-1", 12, 12, 12
		return nil
	})
}

func TestJobsRegister(t *testing.T) {
	f := registerOK(newFakeRPC())
	s := newHTTPServer(httpDeps{RPC: f})
	body := `{"Job": {"ID": "example", "Type": "batch", "Update": {"Stagger": 1}, "Bogus": [1,2],
	  "TaskGroups": [{"Name": "g", "Tasks": [{"Name": "t", "Driver": "raw_exec",
	  "Config": {"command": "/bin/sh", "args": ["-c", "echo hi"]}, "Services": null}]}]}}`
	for _, m := range []string{"PUT", "POST"} {
		rec := do(t, s, m, "/v1/jobs?namespace=ns1", body)
		wantStatus(t, rec, 200, `"EvalID":"eval-1"`)
		if got := rec.Header().Get("X-Nomad-Index"); got != "12" {
			t.Fatalf("X-Nomad-Index = %q, want 12", got)
		}
	}
	calls := f.callsTo(structs.JobRegisterRPC)
	if len(calls) != 2 {
		t.Fatalf("register calls = %d, want 2", len(calls))
	}
	args := calls[0].(*structs.JobRegisterRequest)
	j := args.Job
	if j.Namespace != "ns1" || args.Namespace != "ns1" || j.Region != "global" {
		t.Fatalf("job without the request's namespace and region: %+v", j)
	}
	// Canonicalizing is the server's (jobcheck.Prepare): the assertions that
	// the job arrives with its name, priority, count, restart policy and
	// resources filled moved with that code to
	// jobcheck.TestPrepareCanonicalizesACopy.
}

func TestJobsRegisterBadInputChangesNothing(t *testing.T) {
	cases := []struct {
		name, method, path, body string
		code                     int
		msg                      string
	}{
		{"garbage", "PUT", "/v1/jobs", "{\"Job\": {\"ID\": \n  oops}}", 400, "line 2, column 3"},
		{"truncated", "PUT", "/v1/jobs", `{"Job": {"ID": "x"`, 400, "invalid JSON"},
		{"wrong type", "PUT", "/v1/jobs", `{"Job": {"ID": 5}}`, 400, `field "Job.ID"`},
		{"empty", "PUT", "/v1/jobs", "", 400, "body is empty"},
		{"no job", "PUT", "/v1/jobs", `{}`, 400, "Job must be specified"},
		{"no id", "PUT", "/v1/jobs", `{"Job": {"Name": "x"}}`, 400, "Job ID hasn't been provided"},
		{"id mismatch", "PUT", "/v1/job/other", `{"Job": {"ID": "x"}}`, 400, "Job ID does not match name"},
		{"plan mismatch", "POST", "/v1/job/other/plan", `{"Job": {"ID": "x"}}`, 400, "Job ID does not match name"},
		{"too large", "PUT", "/v1/jobs", `{"Job": {"ID": "` + strings.Repeat("a", maxBodyBytes) + `"}}`, 413, "too large"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := registerOK(newFakeRPC())
			s := newHTTPServer(httpDeps{RPC: f})
			rec := do(t, s, tc.method, tc.path, tc.body)
			wantStatus(t, rec, tc.code, tc.msg)
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
				t.Fatalf("error Content-Type = %q", ct)
			}
			if n := f.numCalls(); n != 0 {
				t.Fatalf("bad input reached the server: %d RPCs", n)
			}
		})
	}
}

func TestJobRegisterNamed(t *testing.T) {
	f := registerOK(newFakeRPC())
	s := newHTTPServer(httpDeps{RPC: f})
	b, _ := json.Marshal(map[string]any{"Job": testJob("web")})
	wantStatus(t, do(t, s, "POST", "/v1/job/web", string(b)), 200, "eval-1")
	if len(f.callsTo(structs.JobRegisterRPC)) != 1 {
		t.Fatal("no register RPC")
	}
}

func TestBlockingQueryParams(t *testing.T) {
	f := newFakeRPC().on(structs.JobListRPC, func(args, reply any) error {
		r := reply.(*structs.JobListResponse)
		r.Index, r.KnownLeader, r.LastContact = 42, true, 1500*time.Millisecond
		return nil
	})
	s := newHTTPServer(httpDeps{RPC: f, Region: "eu"})
	rec := do(t, s, "GET", "/v1/jobs?prefix=ab&index=7&wait=5000ms&stale", "")
	wantStatus(t, rec, 200, "[]")
	h := rec.Header()
	if h.Get("X-Nomad-Index") != "42" || h.Get("X-Nomad-KnownLeader") != "true" || h.Get("X-Nomad-LastContact") != "1500" {
		t.Fatalf("headers = %v", h)
	}
	got := f.callsTo(structs.JobListRPC)[0].(*structs.JobListRequest).QueryOptions
	want := structs.QueryOptions{Region: "eu", Namespace: "default", MinQueryIndex: 7, MaxQueryTime: 5 * time.Second, AllowStale: true, Prefix: "ab"}
	if got != want {
		t.Fatalf("query options = %+v, want %+v", got, want)
	}

	for _, bad := range []string{"index=x", "index=-1", "wait=soon", "wait=-1s"} {
		wantStatus(t, do(t, s, "GET", "/v1/jobs?"+bad, ""), 400, "Invalid")
	}
	if n := len(f.callsTo(structs.JobListRPC)); n != 1 {
		t.Fatalf("bad query params reached the server: %d calls", n)
	}
}

func TestErrorMapping(t *testing.T) {
	f := newFakeRPC().
		on(structs.JobGetJobRPC, func(args, reply any) error { return nil }).
		on(structs.JobListRPC, func(args, reply any) error { return structs.ErrNoLeader }).
		on(structs.EvalListRPC, func(args, reply any) error { return errors.New("disk on fire") })
	s := newHTTPServer(httpDeps{RPC: f})
	wantStatus(t, do(t, s, "GET", "/v1/job/nope", ""), 404, "job not found")
	wantStatus(t, do(t, s, "GET", "/v1/jobs", ""), 500, "No cluster leader")
	wantStatus(t, do(t, s, "GET", "/v1/evaluations", ""), 500, "disk on fire")
	wantStatus(t, do(t, s, "PATCH", "/v1/jobs", ""), 405, "")
	wantStatus(t, do(t, s, "DELETE", "/v1/jobs", ""), 405, "")
	wantStatus(t, do(t, s, "GET", "/v1/nothing", ""), 404, "")
}

func TestJobDeregister(t *testing.T) {
	f := newFakeRPC().on(structs.JobDeregisterRPC, func(args, reply any) error {
		r := reply.(*structs.JobDeregisterResponse)
		r.EvalID, r.Index = "e2", 30
		return nil
	})
	s := newHTTPServer(httpDeps{RPC: f})
	rec := do(t, s, "DELETE", "/v1/job/web?purge=true", "")
	wantStatus(t, rec, 200, `"EvalID":"e2"`)
	if rec.Header().Get("X-Nomad-Index") != "30" {
		t.Fatalf("index header = %q", rec.Header().Get("X-Nomad-Index"))
	}
	args := f.callsTo(structs.JobDeregisterRPC)[0].(*structs.JobDeregisterRequest)
	if args.JobID != "web" || !args.Purge {
		t.Fatalf("args = %+v", args)
	}
	wantStatus(t, do(t, s, "DELETE", "/v1/job/web?purge=maybe", ""), 400, "purge")
}

func TestJobSummary(t *testing.T) {
	job := testJob("web")
	job.Canonicalize()
	f := newFakeRPC().
		on(structs.JobGetJobRPC, func(args, reply any) error {
			r := reply.(*structs.SingleJobResponse)
			r.Job, r.Index = job, 5
			return nil
		}).
		on(structs.JobAllocationsRPC, func(args, reply any) error {
			r := reply.(*structs.JobAllocationsResponse)
			r.Allocations = []*structs.AllocListStub{
				{TaskGroup: "g", ClientStatus: "running"}, {TaskGroup: "g", ClientStatus: "complete"},
				{TaskGroup: "g", ClientStatus: "running"},
			}
			r.Index = 9
			return nil
		})
	s := newHTTPServer(httpDeps{RPC: f})
	rec := do(t, s, "GET", "/v1/job/web/summary", "")
	wantStatus(t, rec, 200, "")
	var sum structs.JobSummary
	if err := json.Unmarshal(rec.Body.Bytes(), &sum); err != nil {
		t.Fatal(err)
	}
	if g := sum.Summary["g"]; g.Running != 2 || g.Complete != 1 || sum.JobID != "web" || sum.ModifyIndex != 9 {
		t.Fatalf("summary = %+v", sum)
	}
}

func TestNodeGetHidesSecret(t *testing.T) {
	node := &structs.Node{ID: "8c0f2a4e-0000-4000-8000-000000000001", SecretID: "s3cr3t", Name: "n1", Status: "ready"}
	f := newFakeRPC().
		on(structs.NodeGetNodeRPC, func(args, reply any) error {
			if args.(*structs.NodeSpecificRequest).NodeID == node.ID {
				reply.(*structs.SingleNodeResponse).Node = node
			}
			return nil
		}).
		on(structs.NodeListRPC, func(args, reply any) error {
			reply.(*structs.NodeListResponse).Nodes = []*structs.NodeListStub{node.Stub()}
			return nil
		})
	s := newHTTPServer(httpDeps{RPC: f})
	for _, path := range []string{"/v1/node/" + node.ID, "/v1/node/8c0f", "/v1/nodes"} {
		rec := do(t, s, "GET", path, "")
		wantStatus(t, rec, 200, node.Name)
		if strings.Contains(rec.Body.String(), "s3cr3t") {
			t.Fatalf("%s leaks the SecretID: %s", path, rec.Body.String())
		}
	}
	if node.SecretID != "s3cr3t" {
		t.Fatal("the handler mutated the server's node")
	}
}

func TestAllocPrefixLookup(t *testing.T) {
	ids := []string{"aaaa1111-0000-4000-8000-000000000000", "aaaa2222-0000-4000-8000-000000000000"}
	f := newFakeRPC().
		on(structs.AllocGetAllocRPC, func(args, reply any) error {
			id := args.(*structs.AllocSpecificRequest).AllocID
			for _, want := range ids {
				if id == want {
					reply.(*structs.SingleAllocResponse).Alloc = &structs.Allocation{ID: id}
				}
			}
			return nil
		}).
		on(structs.AllocListRPC, func(args, reply any) error {
			p := args.(*structs.AllocListRequest).Prefix
			r := reply.(*structs.AllocListResponse)
			for _, id := range ids {
				if strings.HasPrefix(id, p) {
					r.Allocations = append(r.Allocations, &structs.AllocListStub{ID: id})
				}
			}
			return nil
		})
	s := newHTTPServer(httpDeps{RPC: f})
	wantStatus(t, do(t, s, "GET", "/v1/allocation/"+ids[0], ""), 200, ids[0])
	wantStatus(t, do(t, s, "GET", "/v1/allocation/aaaa2", ""), 200, ids[1])
	wantStatus(t, do(t, s, "GET", "/v1/allocation/aaaa", ""), 400, "matches 2 allocations")
	wantStatus(t, do(t, s, "GET", "/v1/allocation/bbbb", ""), 404, "not found")
	wantStatus(t, do(t, s, "GET", "/v1/allocation/bbbb1111-0000-4000-8000-000000000000", ""), 404, "not found")
	wantStatus(t, do(t, s, "GET", "/v1/allocations?prefix=aaaa1", ""), 200, ids[0])
}

func TestAgentHealth(t *testing.T) {
	leader := ""
	f := newFakeRPC().on(structs.StatusLeaderRPC, func(args, reply any) error {
		*reply.(*string) = leader
		return nil
	})
	s := newHTTPServer(httpDeps{RPC: f, Self: func() *agentInfo { return &agentInfo{MemberName: "s1", Client: true} }})
	wantStatus(t, do(t, s, "GET", "/v1/agent/health", ""), 500, `"server":{"ok":false`)
	leader = "127.0.0.1:4647"
	wantStatus(t, do(t, s, "GET", "/v1/agent/health", ""), 200, `"client":{"ok":true,"message":"ok"}`)
}

func TestJobsParse(t *testing.T) {
	var gotVars string
	parse := func(name string, body []byte, vars string) (*structs.Job, error) {
		gotVars = vars
		if strings.Contains(string(body), "bad") {
			return nil, badRequest("input.hcl:1:5: Unsupported block type")
		}
		return testJob("parsed"), nil
	}
	f := newFakeRPC()
	s := newHTTPServer(httpDeps{RPC: f, Parse: parse})
	rec := do(t, s, "PUT", "/v1/jobs/parse", `{"JobHCL": "job \"parsed\" {}", "Canonicalize": true, "Variables": "x = 1"}`)
	wantStatus(t, rec, 200, `"ID":"parsed"`)
	if gotVars != "x = 1" || !strings.Contains(rec.Body.String(), `"Priority":50`) {
		t.Fatalf("vars %q, body %s", gotVars, rec.Body.String())
	}
	wantStatus(t, do(t, s, "POST", "/v1/jobs/parse", `{"JobHCL": "bad"}`), 400, "input.hcl:1:5")
	wantStatus(t, do(t, s, "POST", "/v1/jobs/parse", `{"JobHCL": ""}`), 400, "empty")
	s = newHTTPServer(httpDeps{RPC: f})
	wantStatus(t, do(t, s, "POST", "/v1/jobs/parse", `{"JobHCL": "job"}`), 501, "not available")
}
