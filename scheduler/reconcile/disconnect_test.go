package reconcile

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// disconnectJob is testJob with a disconnect block (lost_after 5m; replace
// and reconcile as given; replace nil: the default).
func disconnectJob(count int, replace *bool, reconcile string) *structs.Job {
	j := testJob(structs.JobTypeService, count)
	j.TaskGroups[0].Disconnect = &structs.DisconnectStrategy{LostAfter: 5 * time.Minute, Replace: replace, Reconcile: reconcile}
	return j
}

// replacement is alloc(idx, node, cs, create) placed as the replacement of
// prev, with a placement score on its node.
func replacement(idx uint, node, cs string, create uint64, prev *structs.Allocation) *structs.Allocation {
	a := alloc(idx, node, cs, create)
	a.PreviousAllocation = prev.ID
	return a
}

func withScore(a *structs.Allocation, score float64) *structs.Allocation {
	a.Metrics = &structs.AllocMetric{ScoreMetaData: []*structs.NodeScoreMeta{{NodeID: a.NodeID, NormScore: score}}}
	return a
}

func withStart(a *structs.Allocation, at time.Time) *structs.Allocation {
	a.TaskStates = map[string]*structs.TaskState{"t": {State: structs.TaskStateRunning, StartedAt: at}}
	return a
}

// disconnectSummary is summary plus the allocs marked unknown.
func disconnectSummary(r Result) string {
	var unknown []string
	for _, a := range r.Disconnecting {
		unknown = append(unknown, fmt.Sprint(a.Index()))
	}
	sort.Strings(unknown)
	return summary(r) + "; unknown " + strings.Join(unknown, " ")
}

func TestReconcileDisconnect(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	gone := &structs.Node{ID: "gone", Status: structs.NodeStatusDisconnected, StatusUpdatedAt: t0.UnixNano()}
	disc := map[string]*structs.Node{"gone": gone}
	down := map[string]*structs.Node{"gone": {ID: "gone", Status: structs.NodeStatusDown, StatusUpdatedAt: t0.Add(5 * time.Minute).UnixNano()}}
	no := false
	orig0, orig1 := alloc(0, "gone", "", 1), alloc(1, "gone", "", 1)
	unknown0 := alloc(0, "gone", structs.AllocClientStatusUnknown, 1)
	repl0 := replacement(0, "n2", "", 5, unknown0)
	plain := testJob(structs.JobTypeService, 2)
	oldSyntax := testJob(structs.JobTypeService, 2)
	mcd := 5 * time.Minute
	oldSyntax.TaskGroups[0].MaxClientDisconnect = &mcd
	cases := []struct {
		name    string
		job     *structs.Job
		allocs  []*structs.Allocation
		tainted map[string]*structs.Node
		now     time.Time
		want    string
	}{
		{"no disconnect block: lost at once", plain, []*structs.Allocation{orig0, alloc(1, "n2", "", 1)}, disc, t0.Add(time.Second),
			"place 0(a0-1); stop 0:lost; ignore 1; unknown "},
		{"within lost_after: unknown and replaced", disconnectJob(2, nil, ""), []*structs.Allocation{orig0, alloc(1, "n2", "", 1)}, disc, t0.Add(time.Minute),
			"place 0(a0-1); stop ; ignore 0 1; unknown 0"},
		{"max_client_disconnect works the same", oldSyntax, []*structs.Allocation{orig0, orig1}, disc, t0.Add(time.Minute),
			"place 0(a0-1) 1(a1-1); stop ; ignore 0 1; unknown 0 1"},
		{"already unknown and replaced: nothing to do", disconnectJob(2, nil, ""), []*structs.Allocation{unknown0, repl0, alloc(1, "n2", "", 1)}, disc, t0.Add(2 * time.Minute),
			"place ; stop ; ignore 0 0 1; unknown "},
		{"replace = false: unknown, counted, not replaced", disconnectJob(2, &no, ""), []*structs.Allocation{orig0, alloc(1, "n2", "", 1)}, disc, t0.Add(time.Minute),
			"place ; stop ; ignore 0 1; unknown 0"},
		{"window passed while still disconnected: lost, replacement kept", disconnectJob(2, nil, ""), []*structs.Allocation{unknown0, repl0, alloc(1, "n2", "", 1)}, disc, t0.Add(6 * time.Minute),
			"place ; stop 0:lost; ignore 0 1; unknown "},
		{"node down after the window: lost, replacement kept", disconnectJob(2, nil, ""), []*structs.Allocation{unknown0, repl0, alloc(1, "n2", "", 1)}, down, t0.Add(6 * time.Minute),
			"place ; stop 0:lost; ignore 0 1; unknown "},
		{"node down, replace = false: lost and now replaced", disconnectJob(2, &no, ""), []*structs.Allocation{unknown0, alloc(1, "n2", "", 1)}, down, t0.Add(6 * time.Minute),
			"place 0(a0-1); stop 0:lost; ignore 1; unknown "},
		{"reconnected, best_score tie: the original stays", disconnectJob(2, nil, ""), []*structs.Allocation{alloc(0, "gone", "", 1), repl0, alloc(1, "n2", "", 1)}, nil, t0.Add(2 * time.Minute),
			"place ; stop 0; ignore 0 1; unknown "},
		{"reconnected before the client reported: the unknown original stays", disconnectJob(2, nil, structs.ReconcileKeepOriginal), []*structs.Allocation{unknown0, repl0, alloc(1, "n2", "", 1)}, nil, t0.Add(2 * time.Minute),
			"place ; stop 0; ignore 0 1; unknown "},
	}
	for _, c := range cases {
		res := Reconcile(Input{Job: c.job, Allocs: c.allocs, TaintedNodes: c.tainted, Now: c.now})
		if got := disconnectSummary(res); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// TestReconcileReconnectStrategies checks which of an original and its
// replacement each reconcile strategy stops once the node is back.
func TestReconcileReconnectStrategies(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	cases := []struct {
		strategy   string
		orig, repl func(*structs.Allocation) *structs.Allocation
		stopped    string // "orig" or "repl"
	}{
		{structs.ReconcileKeepOriginal, nil, nil, "repl"},
		{structs.ReconcileKeepReplacement, nil, nil, "orig"},
		{structs.ReconcileBestScore, func(a *structs.Allocation) *structs.Allocation { return withScore(a, 0.4) },
			func(a *structs.Allocation) *structs.Allocation { return withScore(a, 0.9) }, "orig"},
		{structs.ReconcileBestScore, func(a *structs.Allocation) *structs.Allocation { return withScore(a, 0.9) },
			func(a *structs.Allocation) *structs.Allocation { return withScore(a, 0.4) }, "repl"},
		{structs.ReconcileBestScore, nil, func(a *structs.Allocation) *structs.Allocation { return withScore(a, 0.9) }, "repl"},
		{structs.ReconcileLongestRunning, func(a *structs.Allocation) *structs.Allocation { return withStart(a, t0.Add(-time.Hour)) },
			func(a *structs.Allocation) *structs.Allocation { return withStart(a, t0) }, "repl"},
		{structs.ReconcileLongestRunning, func(a *structs.Allocation) *structs.Allocation { return withStart(a, t0) },
			func(a *structs.Allocation) *structs.Allocation { return withStart(a, t0.Add(-time.Hour)) }, "orig"},
	}
	for i, c := range cases {
		orig := alloc(0, "back", "", 1)
		repl := replacement(0, "n2", "", 5, orig)
		if c.orig != nil {
			orig = c.orig(orig)
		}
		if c.repl != nil {
			repl = c.repl(repl)
		}
		res := Reconcile(Input{Job: disconnectJob(1, nil, c.strategy), Allocs: []*structs.Allocation{orig, repl}, Now: t0})
		if len(res.Stop) != 1 || len(res.Place) != 0 {
			t.Errorf("case %d (%s): %s", i, c.strategy, disconnectSummary(res))
			continue
		}
		want := map[string]*structs.Allocation{"orig": orig, "repl": repl}[c.stopped]
		if res.Stop[0].Alloc != want || res.Stop[0].Description != allocReconnected {
			t.Errorf("case %d (%s): stopped %s (%q), want the %s", i, c.strategy, res.Stop[0].Alloc.ID, res.Stop[0].Description, c.stopped)
		}
	}
}

// TestReconcileDisconnectExpiry: allocs marked unknown now ask for a
// follow-up at the earliest end of their windows; allocs already unknown
// do not ask again.
func TestReconcileDisconnectExpiry(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	disc := map[string]*structs.Node{"gone": {ID: "gone", Status: structs.NodeStatusDisconnected, StatusUpdatedAt: t0.UnixNano()}}
	job := disconnectJob(2, nil, "")
	short := *job.TaskGroups[0]
	short.Name, short.Disconnect = "short", &structs.DisconnectStrategy{LostAfter: time.Minute}
	job.TaskGroups = append(job.TaskGroups, &short)
	s0 := alloc(0, "gone", "", 1)
	s0.TaskGroup, s0.Name = "short", structs.AllocName("j", "short", 0)
	res := Reconcile(Input{Job: job, Allocs: []*structs.Allocation{alloc(0, "gone", "", 1), s0}, TaintedNodes: disc, Now: t0.Add(time.Second)})
	if len(res.Disconnecting) != 2 || !res.DisconnectExpiry.Equal(t0.Add(time.Minute)) {
		t.Fatalf("unknown %d, expiry %v (want %v)", len(res.Disconnecting), res.DisconnectExpiry, t0.Add(time.Minute))
	}
	u0 := alloc(0, "gone", structs.AllocClientStatusUnknown, 1)
	res = Reconcile(Input{Job: disconnectJob(1, nil, ""), Allocs: []*structs.Allocation{u0}, TaintedNodes: disc, Now: t0.Add(time.Second)})
	if len(res.Disconnecting) != 0 || !res.DisconnectExpiry.IsZero() {
		t.Fatalf("already unknown: %d to mark, expiry %v", len(res.Disconnecting), res.DisconnectExpiry)
	}
}

// TestReconcileLostBatch: a batch job's live alloc on a down node is lost
// and replaced at its index (as Nomad), while a completed one still counts.
func TestReconcileLostBatch(t *testing.T) {
	down := map[string]*structs.Node{"dead": {ID: "dead", Status: structs.NodeStatusDown}}
	job := testJob(structs.JobTypeBatch, 2)
	allocs := []*structs.Allocation{alloc(0, "dead", "", 1), alloc(1, "dead", structs.AllocClientStatusComplete, 1)}
	res := Reconcile(Input{Job: job, Allocs: allocs, TaintedNodes: down, Now: time.Unix(1, 0)})
	if got, want := summary(res), "place 0(a0-1); stop 0:lost; ignore 1"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}
