package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// drainAPI fakes the node endpoints of a drain: each GET of the node's
// allocations returns the next version of allocs (the last one repeats),
// and the node's drain strategy is cleared once the last version was served.
type drainAPI struct {
	mu       sync.Mutex
	bodies   []string
	versions [][]*structs.Allocation
	served   int
	// doneAfter is how many allocation answers are served before the
	// drain shows complete (default: all versions).
	doneAfter int
	srv       *httptest.Server
}

func newDrainAPI(t *testing.T, versions ...[]*structs.Allocation) *drainAPI {
	d := &drainAPI{versions: versions, doneAfter: len(versions)}
	mux := http.NewServeMux()
	write := func(w http.ResponseWriter, v any) {
		w.Header().Set("X-Nomad-Index", "7")
		_ = json.NewEncoder(w).Encode(v)
	}
	record := func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		d.mu.Lock()
		d.bodies = append(d.bodies, r.URL.Path+" "+string(b))
		d.mu.Unlock()
		write(w, map[string]any{"NodeModifyIndex": 7})
	}
	mux.HandleFunc("POST /v1/node/{id}/drain", record)
	mux.HandleFunc("POST /v1/node/{id}/eligibility", record)
	mux.HandleFunc("GET /v1/nodes", func(w http.ResponseWriter, r *http.Request) {
		write(w, []*structs.NodeListStub{{ID: nodeID, Name: "n1", Status: "ready"}})
	})
	mux.HandleFunc("GET /v1/node/{id}", func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		done := d.served >= d.doneAfter
		d.mu.Unlock()
		n := &structs.Node{ID: nodeID, Name: "n1", Status: "ready", SchedulingEligibility: "ineligible"}
		if !done {
			n.DrainStrategy, n.Drain = &structs.DrainStrategy{DrainSpec: structs.DrainSpec{Deadline: time.Hour}}, true
		}
		write(w, n)
	})
	mux.HandleFunc("GET /v1/node/{id}/allocations", func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		i := min(d.served, len(d.versions)-1)
		d.served++
		d.mu.Unlock()
		write(w, d.versions[i])
	})
	d.srv = httptest.NewServer(mux)
	t.Cleanup(d.srv.Close)
	return d
}

func (d *drainAPI) run(args ...string) (int, string, string) {
	return runCLI(map[string]string{"NOMADISH_ADDR": d.srv.URL}, args...)
}

func drainAlloc(id, desired, client string, migrate bool) *structs.Allocation {
	a := &structs.Allocation{ID: id, NodeID: nodeID, DesiredStatus: desired, ClientStatus: client}
	if migrate {
		yes := true
		a.DesiredTransition.Migrate = &yes
	}
	return a
}

func TestNodeDrainMonitorsUntilComplete(t *testing.T) {
	d := newDrainAPI(t,
		[]*structs.Allocation{drainAlloc("a1", "run", "running", false)},
		[]*structs.Allocation{drainAlloc("a1", "run", "running", true)},
		[]*structs.Allocation{drainAlloc("a1", "stop", "running", true)},
		[]*structs.Allocation{drainAlloc("a1", "stop", "complete", true)},
	)
	d.doneAfter = 2 // complete once the alloc is told to stop: the monitor waits until it stopped
	code, out, errOut := d.run("node", "drain", "-enable", "-deadline", "30m", "-ignore-system", "-yes", "n1n1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		`Node "` + nodeID + `" drain strategy set`,
		`Alloc "a1" marked for migration`,
		`Alloc "a1" draining`,
		`Alloc "a1" status running -> complete`,
		`Drain complete for node ` + nodeID,
		`All allocations on node "` + nodeID + `" have stopped`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "Drain complete") > strings.Index(out, "status running -> complete") {
		t.Errorf("drain completes before the alloc stopped:\n%s", out)
	}
	if d.served != 4 {
		t.Errorf("monitor stopped after %d answers, want 4 (until the alloc stopped)", d.served)
	}
	if len(d.bodies) != 1 || !strings.Contains(d.bodies[0], `"DrainSpec":{"Deadline":1800000000000,"IgnoreSystemJobs":true}`) {
		t.Fatalf("drain request: %q", d.bodies)
	}
}

func TestNodeDrainFlags(t *testing.T) {
	d := newDrainAPI(t, nil)
	for _, tc := range []struct {
		args []string
		body string
		out  string
	}{
		{[]string{"-enable", "-force", "-detach"}, `"Deadline":-1000000000`, "drain strategy set"},
		{[]string{"-enable", "-no-deadline", "-detach"}, `"Deadline":0,`, "drain strategy set"},
		{[]string{"-disable"}, `"DrainSpec":null,"MarkEligible":true`, "drain strategy unset"},
		{[]string{"-disable", "-keep-ineligible"}, `"DrainSpec":null,"MarkEligible":false`, "drain strategy unset"},
	} {
		d.bodies = nil
		code, out, errOut := d.run(append(append([]string{"node", "drain"}, tc.args...), nodeID)...)
		if code != 0 || !strings.Contains(out, tc.out) || len(d.bodies) != 1 || !strings.Contains(d.bodies[0], tc.body) {
			t.Errorf("%v: exit %d out %q err %q bodies %q", tc.args, code, out, errOut, d.bodies)
		}
	}
	if code, _, errOut := d.run("node", "drain", nodeID); code != 1 || !strings.Contains(errOut, "-enable or -disable") {
		t.Errorf("no mode: exit %d %q", code, errOut)
	}
	if code, _, errOut := d.run("node", "drain", "-enable", "-force", "-no-deadline", nodeID); code != 1 || !strings.Contains(errOut, "exclude") {
		t.Errorf("conflict: exit %d %q", code, errOut)
	}
}

func TestNodeEligibility(t *testing.T) {
	d := newDrainAPI(t, nil)
	code, out, _ := d.run("node", "eligibility", "-disable", "n1n1")
	if code != 0 || !strings.Contains(out, "ineligible for scheduling") || !strings.Contains(d.bodies[0], `"Eligibility":"ineligible"`) {
		t.Fatalf("exit %d %q %q", code, out, d.bodies)
	}
	if code, _, _ := d.run("node", "eligibility", nodeID); code != 1 {
		t.Fatalf("no mode: exit %d", code)
	}
}

func TestNodeStatusShowsDrainAndEvents(t *testing.T) {
	var b strings.Builder
	m := &Meta{Out: &b}
	at := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	printNodeDrainAndEvents(m, &structs.Node{
		DrainStrategy: &structs.DrainStrategy{DrainSpec: structs.DrainSpec{Deadline: time.Hour}, StartedAt: at, ForceDeadline: at.Add(time.Hour)},
		Events: []*structs.NodeEvent{
			{Message: "Node registered", Subsystem: "Cluster", Timestamp: at},
			{Message: structs.NodeEventDrainStrategySet, Subsystem: "Drain", Timestamp: at},
		},
	})
	out := b.String()
	for _, want := range []string{"Drain Deadline", "Node Events", "Node drain strategy set", "Subsystem"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "drain strategy set") > strings.Index(out, "Node registered") {
		t.Errorf("newest event first:\n%s", out)
	}
}
