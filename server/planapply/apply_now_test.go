package planapply_test

import (
	"testing"

	"github.com/nomadish/nomadish/server/planapply"
	"github.com/nomadish/nomadish/server/planapply/planapplytest"
)

// TestApplyNowChecksAndCommits: ApplyNow, with no Run going, commits what
// fits and rejects the rest with a refresh index, as Run's apply does.
func TestApplyNowChecksAndCommits(t *testing.T) {
	store := planapplytest.NewStore()
	store.UpsertNode(planapplytest.Node("n1", 1000, 8192))
	a := planapply.New(planapply.Config{State: store, Commit: store})

	p := newPlan("e1", 50)
	p.AppendAlloc(planapplytest.Alloc("a1", "n1", 600, 100))
	res, err := a.ApplyNow(p)
	if err != nil {
		t.Fatal(err)
	}
	if res.RefreshIndex != 0 || len(res.NodeAllocation["n1"]) != 1 || res.AllocIndex == 0 {
		t.Fatalf("first plan: want committed in full, got %+v", res)
	}

	p2 := newPlan("e2", 50)
	p2.AppendAlloc(planapplytest.Alloc("a2", "n1", 600, 100))
	res, err = a.ApplyNow(p2)
	if err != nil {
		t.Fatal(err)
	}
	if res.RefreshIndex == 0 || len(res.RejectedNodes) != 1 || len(res.NodeAllocation) != 0 {
		t.Fatalf("second plan: want rejected (node full), got %+v", res)
	}
	if got := committedCPU(store, "n1"); got != 600 {
		t.Fatalf("committed cpu on n1 = %d, want 600", got)
	}
}
