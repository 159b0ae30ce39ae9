package state

import (
	"slices"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// TestAllocsByNodeTerminal: the node_terminal index follows an allocation
// from live to terminal, whether the client finishes it or the server
// stops it, and keeps nodes apart.
func TestAllocsByNodeTerminal(t *testing.T) {
	s := testStore(t)
	job := testJob("web")
	done, stopped, running, other := testAlloc(job, "n1", "e1"), testAlloc(job, "n1", "e1"), testAlloc(job, "n1", "e1"), testAlloc(job, "n2", "e1")
	if err := s.UpsertAllocs(3, []*structs.Allocation{done, stopped, running, other}); err != nil {
		t.Fatal(err)
	}
	ids := func(terminal bool) []string {
		t.Helper()
		allocs, err := s.Snapshot().AllocsByNodeTerminal(nil, "n1", terminal)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, a := range allocs {
			out = append(out, a.ID)
		}
		slices.Sort(out)
		return out
	}
	sorted := func(s ...string) []string { slices.Sort(s); return s }
	if got, want := ids(false), sorted(done.ID, stopped.ID, running.ID); !slices.Equal(got, want) {
		t.Fatalf("live on n1 = %v, want %v", got, want)
	}
	if got := ids(true); len(got) != 0 {
		t.Fatalf("terminal on n1 = %v, want none", got)
	}

	upd := &structs.Allocation{ID: done.ID, NodeID: "n1", ClientStatus: structs.AllocClientStatusComplete}
	if err := s.UpdateAllocsFromClient(4, []*structs.Allocation{upd}, nil); err != nil {
		t.Fatal(err)
	}
	stop := &structs.Allocation{ID: stopped.ID, DesiredStatus: structs.AllocDesiredStatusStop}
	if err := s.UpsertPlanResults(5, &structs.ApplyPlanResultsRequest{AllocsStopped: []*structs.Allocation{stop}}); err != nil {
		t.Fatal(err)
	}
	if got, want := ids(false), []string{running.ID}; !slices.Equal(got, want) {
		t.Fatalf("live on n1 = %v, want %v", got, want)
	}
	if got, want := ids(true), sorted(done.ID, stopped.ID); !slices.Equal(got, want) {
		t.Fatalf("terminal on n1 = %v, want %v", got, want)
	}
	view := s.Snapshot().ReadView()
	live, err := view.LiveAllocsByNode("n2")
	if err != nil || len(live) != 1 || live[0].ID != other.ID {
		t.Fatalf("LiveAllocsByNode(n2) = %v, %v; want [%s]", live, err, other.ID)
	}
}

// BenchmarkNodeAllocsAfterBatchWork reads one node's allocations the way
// placement does, on a node that ran 10,000 batch allocations (complete)
// and holds 10 live ones: all of them (AllocsByNode, what the scheduler
// read before) against the live ones through node_terminal.
func BenchmarkNodeAllocsAfterBatchWork(b *testing.B) {
	s, err := New(nil)
	if err != nil {
		b.Fatal(err)
	}
	job := testJob("batch")
	var allocs []*structs.Allocation
	for i := range 10010 {
		a := testAlloc(job, "n1", "e1")
		if i < 10000 {
			a.ClientStatus = structs.AllocClientStatusComplete
		}
		allocs = append(allocs, a)
	}
	if err := s.UpsertAllocs(3, allocs); err != nil {
		b.Fatal(err)
	}
	snap := s.Snapshot()
	b.Run("all", func(b *testing.B) {
		for b.Loop() {
			if got, _ := snap.AllocsByNode(nil, "n1"); len(got) != 10010 {
				b.Fatalf("%d allocs", len(got))
			}
		}
	})
	b.Run("live", func(b *testing.B) {
		for b.Loop() {
			if got, _ := snap.AllocsByNodeTerminal(nil, "n1", false); len(got) != 10 {
				b.Fatalf("%d allocs", len(got))
			}
		}
	})
}
