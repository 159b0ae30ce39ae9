package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// gcAPI serves node gc and alloc gc on top of fakeAPI (which records
// every request); alloc gc of the allocation answers 400 when running.
func gcAPI(t *testing.T, f *fakeAPI, running *bool) string {
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /v1/client/gc", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("PUT /v1/client/allocation/{id}/gc", func(w http.ResponseWriter, r *http.Request) {
		if *running {
			http.Error(w, "allocation is still running", http.StatusBadRequest)
			return
		}
		f.json(w, struct{}{})
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern != "" {
			f.srv.Config.Handler.ServeHTTP(httptest.NewRecorder(), r.Clone(r.Context())) // record it
			mux.ServeHTTP(w, r)
			return
		}
		f.srv.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestNodeAndAllocGCCommands(t *testing.T) {
	f := newFakeAPI(t)
	allocFixture(f, "t")
	f.nodes = []*structs.NodeListStub{{ID: nodeID, Name: "n1", Status: structs.NodeStatusReady}}
	running := false
	env := map[string]string{"NOMADISH_ADDR": gcAPI(t, f, &running)}
	for _, tc := range []struct {
		args    []string
		request string
		stdout  string
	}{
		{[]string{"node", "gc"}, "PUT /v1/client/gc", "Garbage collected the terminal allocations of the agent's client\n"},
		{[]string{"node", "gc", "n1n1"}, "PUT /v1/client/gc?node_id=" + nodeID,
			"Garbage collected the terminal allocations of node " + nodeID + "\n"},
		{[]string{"alloc", "gc", "a1a1"}, "PUT /v1/client/allocation/" + allocID + "/gc",
			"Garbage collected allocation " + allocID + "\n"},
	} {
		code, out, errb := runCLI(env, tc.args...)
		if code != 0 || out != tc.stdout {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", tc.args, code, out, errb)
		}
		f.mu.Lock()
		got := f.requests[len(f.requests)-1]
		f.mu.Unlock()
		if got != tc.request {
			t.Fatalf("%v: last request %q, want %q", tc.args, got, tc.request)
		}
	}
	running = true
	code, _, errb := runCLI(env, "alloc", "gc", "a1a1")
	if code != 1 || !strings.Contains(errb, "still running") {
		t.Fatalf("alloc gc of a running alloc: exit %d, stderr %q", code, errb)
	}
	if code, _, _ := runCLI(env, "alloc", "gc"); code != 1 {
		t.Fatalf("alloc gc without an alloc: exit %d", code)
	}
	if code, _, _ := runCLI(env, "node", "gc", "a", "b"); code != 1 {
		t.Fatalf("node gc of two nodes: exit %d", code)
	}
}
