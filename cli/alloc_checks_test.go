package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func TestAllocChecksCommand(t *testing.T) {
	f := newFakeAPI(t)
	allocFixture(f, "t")
	results := map[string]*structs.CheckQueryResult{
		"c2": {ID: "c2", Mode: "readiness", Status: "critical", Output: "TCP connect 10.0.0.7:25000: refused", Timestamp: 100,
			Group: "g", Service: "web", Check: "port"},
		"c1": {ID: "c1", Mode: "healthiness", Status: "passing", StatusCode: 200, Output: "HTTP GET ok\n", Timestamp: 100,
			Group: "g", Task: "t", Service: "web", Check: "alive"},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/client/allocation/{id}/checks", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") != allocID {
			http.Error(w, "unknown allocation", 404)
			return
		}
		f.json(w, results)
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern != "" {
			mux.ServeHTTP(w, r)
			return
		}
		f.srv.Config.Handler.ServeHTTP(w, r)
	}))
	defer srv.Close()
	env := map[string]string{"NOMADISH_ADDR": srv.URL}

	code, out, errb := runCLI(env, "alloc", "checks", "a1a1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for _, want := range []string{"Status of 2 Service Checks", "Name        =  alive", "Status      =  passing",
		"StatusCode  =  200", "Task        =  (group)", "Mode        =  readiness", "TCP connect 10.0.0.7:25000: refused"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "alive") > strings.Index(out, "port") {
		t.Errorf("checks not sorted by name:\n%s", out)
	}
	code, out, _ = runCLI(env, "alloc", "checks", "-json", "a1a1")
	var got map[string]*structs.CheckQueryResult
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil || got["c1"].Check != "alive" {
		t.Fatalf("-json: exit %d %s", code, out)
	}
	if code, _, errb := runCLI(env, "alloc", "checks"); code != 1 || !strings.Contains(errb, "allocation ID") {
		t.Fatalf("no alloc: exit %d %q", code, errb)
	}
}
