package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// fakeAPI is an httptest server answering the endpoints the CLI uses from
// canned data, recording each request. Evaluations are a sequence of
// versions: a GET with ?index=N returns version N (the index of version i is
// i+1), so the monitor's blocking queries walk the sequence without sleeps.
type fakeAPI struct {
	t  *testing.T
	mu sync.Mutex
	// requests are "METHOD /path?query" in arrival order.
	requests []string
	bodies   []string
	tokens   []string // the X-Nomad-Token header of each request

	registerStatus int    // non-zero: answer PUT /v1/jobs with this status
	registerBody   string // and this body
	registerEval   string
	deregEval      string
	evals          map[string][]*structs.Evaluation
	evalAllocs     map[string][]*structs.AllocListStub
	jobs           []*structs.JobListStub
	job            map[string]*structs.Job
	allocs         []*structs.AllocListStub
	alloc          map[string]*structs.Allocation
	nodes          []*structs.NodeListStub
	node           map[string]*structs.Node
	plan           *structs.JobPlanResponse
	logs           string

	srv *httptest.Server
}

func newFakeAPI(t *testing.T) *fakeAPI {
	f := &fakeAPI{t: t, evals: map[string][]*structs.Evaluation{}, evalAllocs: map[string][]*structs.AllocListStub{},
		job: map[string]*structs.Job{}, alloc: map[string]*structs.Allocation{}, node: map[string]*structs.Node{}}
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /v1/jobs", f.register)
	mux.HandleFunc("POST /v1/job/{id}/plan", func(w http.ResponseWriter, r *http.Request) { f.json(w, f.plan) })
	mux.HandleFunc("DELETE /v1/job/{id}", func(w http.ResponseWriter, r *http.Request) {
		f.json(w, structs.JobDeregisterResponse{EvalID: f.deregEval})
	})
	mux.HandleFunc("GET /v1/jobs", func(w http.ResponseWriter, r *http.Request) { f.json(w, f.jobs) })
	mux.HandleFunc("GET /v1/job/{id}", func(w http.ResponseWriter, r *http.Request) { f.jsonOr404(w, f.job[r.PathValue("id")]) })
	mux.HandleFunc("GET /v1/job/{id}/allocations", func(w http.ResponseWriter, r *http.Request) {
		var out []*structs.AllocListStub
		for _, a := range f.allocs {
			if a.JobID == r.PathValue("id") {
				out = append(out, a)
			}
		}
		f.json(w, out)
	})
	mux.HandleFunc("GET /v1/evaluation/{id}", f.evaluation)
	mux.HandleFunc("GET /v1/job/{id}/evaluations", func(w http.ResponseWriter, r *http.Request) {
		out := []*structs.Evaluation{}
		for _, seq := range f.evals {
			if e := seq[len(seq)-1]; e.JobID == r.PathValue("id") {
				out = append(out, e)
			}
		}
		f.json(w, out)
	})
	mux.HandleFunc("GET /v1/evaluation/{id}/allocations", func(w http.ResponseWriter, r *http.Request) {
		f.json(w, f.evalAllocs[r.PathValue("id")])
	})
	mux.HandleFunc("GET /v1/evaluations", func(w http.ResponseWriter, r *http.Request) {
		var out []*structs.Evaluation
		for _, seq := range f.evals {
			out = append(out, seq[len(seq)-1])
		}
		f.json(w, out)
	})
	mux.HandleFunc("GET /v1/allocations", func(w http.ResponseWriter, r *http.Request) { f.json(w, f.allocs) })
	mux.HandleFunc("GET /v1/allocation/{id}", func(w http.ResponseWriter, r *http.Request) { f.jsonOr404(w, f.alloc[r.PathValue("id")]) })
	mux.HandleFunc("GET /v1/nodes", func(w http.ResponseWriter, r *http.Request) { f.json(w, f.nodes) })
	mux.HandleFunc("GET /v1/node/{id}", func(w http.ResponseWriter, r *http.Request) { f.jsonOr404(w, f.node[r.PathValue("id")]) })
	mux.HandleFunc("GET /v1/client/fs/logs/{alloc}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte(f.logs))
	})
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body bytes.Buffer
		_, _ = body.ReadFrom(r.Body)
		r.Body.Close()
		r.Body = http.NoBody
		f.mu.Lock()
		line := r.Method + " " + r.URL.Path
		if r.URL.RawQuery != "" {
			line += "?" + r.URL.RawQuery
		}
		f.requests = append(f.requests, line)
		f.bodies = append(f.bodies, body.String())
		f.tokens = append(f.tokens, r.Header.Get("X-Nomad-Token"))
		f.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) json(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		f.t.Errorf("fake: encoding: %v", err)
	}
}

func (f *fakeAPI) jsonOr404(w http.ResponseWriter, v any) {
	switch x := v.(type) {
	case *structs.Job:
		if x == nil {
			http.Error(w, "job not found", 404)
			return
		}
	case *structs.Allocation:
		if x == nil {
			http.Error(w, "alloc not found", 404)
			return
		}
	case *structs.Node:
		if x == nil {
			http.Error(w, "node not found", 404)
			return
		}
	}
	f.json(w, v)
}

func (f *fakeAPI) register(w http.ResponseWriter, r *http.Request) {
	if f.registerStatus != 0 {
		http.Error(w, f.registerBody, f.registerStatus)
		return
	}
	f.json(w, structs.JobRegisterResponse{EvalID: f.registerEval, EvalCreateIndex: 1})
}

func (f *fakeAPI) evaluation(w http.ResponseWriter, r *http.Request) {
	seq := f.evals[r.PathValue("id")]
	if len(seq) == 0 {
		http.Error(w, "eval not found", 404)
		return
	}
	i, _ := strconv.Atoi(r.URL.Query().Get("index"))
	if i >= len(seq) {
		i = len(seq) - 1
	}
	w.Header().Set("X-Nomad-Index", strconv.Itoa(i+1))
	f.json(w, seq[i])
}

// requestCount returns how many requests match the method and path prefix.
func (f *fakeAPI) requestCount(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if strings.HasPrefix(r, prefix) {
			n++
		}
	}
	return n
}

// fixedNow is the clock of the unit tests.
var fixedNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// run runs the CLI against the fake (through NOMADISH_ADDR) and returns the
// exit code, stdout and stderr.
func (f *fakeAPI) run(args ...string) (int, string, string) {
	return runCLI(map[string]string{"NOMADISH_ADDR": f.srv.URL}, args...)
}

func runCLI(env map[string]string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	m := &Meta{Out: &out, Err: &errb, Getenv: func(k string) string { return env[k] },
		Now: func() time.Time { return fixedNow }}
	code := m.Run(args)
	return code, out.String(), errb.String()
}

const (
	evalID  = "e1e1e1e1-0000-4000-8000-000000000001"
	blockID = "b1b1b1b1-0000-4000-8000-000000000002"
	allocID = "a1a1a1a1-0000-4000-8000-000000000003"
	nodeID  = "n1n1n1n1-0000-4000-8000-000000000004"
)
