package state

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// TestReapGCRefusesLive: a reap entry naming live objects (a job
// re-registered since the collector looked, a running allocation, a
// pending evaluation, a down node with a running allocation) deletes none
// of them, nor anything of a job it keeps; the dead batch job goes with
// its evaluation, allocation and versions, the empty down node goes.
func TestReapGCRefusesLive(t *testing.T) {
	s := testStore(t)
	dead := testJob("dead")
	dead.Type = structs.JobTypeBatch
	de := testEval(dead, structs.EvalStatusComplete)
	da := testAlloc(dead, "n1", de.ID)
	da.ClientStatus = structs.AllocClientStatusComplete
	live := testJob("live")
	le := testEval(live, structs.EvalStatusComplete)
	running := testAlloc(live, "down-busy", le.ID)
	running.ClientStatus = structs.AllocClientStatusRunning
	finished := testAlloc(live, "n1", le.ID)
	finished.ClientStatus = structs.AllocClientStatusComplete
	pending := testEval(live, structs.EvalStatusPending)
	busy, empty := &structs.Node{ID: "down-busy", Status: structs.NodeStatusDown}, &structs.Node{ID: "down-empty", Status: structs.NodeStatusDown}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.UpsertJob(1, dead, de))
	must(s.UpsertJob(2, live, le))
	must(s.UpsertEvals(3, []*structs.Evaluation{pending}))
	must(s.UpsertAllocs(4, []*structs.Allocation{da, running, finished}))
	must(s.UpsertNode(5, busy))
	must(s.UpsertNode(6, empty))
	if j, _ := s.JobByID(nil, "default", "dead"); j.Status != structs.JobStatusDead {
		t.Fatalf("dead job status %q", j.Status)
	}

	resp, err := s.ReapGC(10, &structs.GCReapRequest{
		Jobs:   []structs.NamespacedID{{Namespace: "default", ID: "dead"}, {Namespace: "default", ID: "live"}},
		Evals:  []string{le.ID, pending.ID},
		Allocs: []string{running.ID, finished.ID},
		Nodes:  []string{"down-busy", "down-empty"},
	})
	must(err)
	if *resp != (structs.GCReapResponse{Jobs: 1, Evals: 1, Allocs: 1, Nodes: 1}) {
		t.Errorf("deleted %+v, want the dead job with its eval and alloc, and one node", *resp)
	}
	if j, _ := s.JobByID(nil, "default", "dead"); j != nil {
		t.Error("dead job kept")
	}
	if vs, _ := s.JobVersionsByID(nil, "default", "dead"); len(vs) != 0 {
		t.Errorf("dead job's %d versions kept", len(vs))
	}
	if a, _ := s.AllocByID(nil, da.ID); a != nil {
		t.Error("dead job's alloc kept")
	}
	if j, _ := s.JobByID(nil, "default", "live"); j == nil {
		t.Error("live job deleted")
	}
	for _, id := range []string{running.ID, finished.ID} {
		if a, _ := s.AllocByID(nil, id); a == nil {
			t.Errorf("alloc %s of the kept job deleted", id)
		}
	}
	for _, id := range []string{le.ID, pending.ID} {
		if e, _ := s.EvalByID(nil, id); e == nil {
			t.Errorf("eval %s of the kept job deleted", id)
		}
	}
	if n, _ := s.NodeByID(nil, "down-busy"); n == nil {
		t.Error("down node with a running alloc deleted")
	}
	if n, _ := s.NodeByID(nil, "down-empty"); n != nil {
		t.Error("empty down node kept")
	}
	if idx, _ := s.Index(TableJobs); idx != 10 {
		t.Errorf("jobs index %d, want 10 (blocking queries wake)", idx)
	}

	// Listed on their own (the job not listed), a running alloc and a
	// pending eval are still kept; the finished alloc goes.
	resp, err = s.ReapGC(11, &structs.GCReapRequest{Evals: []string{pending.ID}, Allocs: []string{running.ID, finished.ID}})
	must(err)
	if *resp != (structs.GCReapResponse{Allocs: 1}) {
		t.Errorf("deleted %+v, want the finished alloc only", *resp)
	}
	// The nodes whose allocations went record it, for their alloc watch
	// (Node.GetClientAllocs); a node that lost none does not.
	if idx, _ := s.NodeAllocsRemovedIndex("n1"); idx != 11 {
		t.Errorf("n1's allocs removed at %d, want 11", idx)
	}
	if idx, _ := s.NodeAllocsRemovedIndex("down-busy"); idx != 0 {
		t.Errorf("down-busy lost no alloc, but records %d", idx)
	}
}

// TestReconcileJobSummaries: a job whose stored status drifted is
// recomputed.
func TestReconcileJobSummaries(t *testing.T) {
	s := testStore(t)
	j := testJob("j")
	e := testEval(j, structs.EvalStatusComplete)
	if err := s.UpsertJob(1, j, e); err != nil {
		t.Fatal(err)
	}
	stored, _ := s.JobByID(nil, "default", "j")
	want := stored.Status
	stored.Status = "drifted" // as a bug would leave it
	if err := s.ReconcileJobSummaries(2); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.JobByID(nil, "default", "j"); got.Status != want {
		t.Errorf("status %q after reconcile, want %q", got.Status, want)
	}
}
