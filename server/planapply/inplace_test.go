package planapply_test

import (
	"context"
	"testing"

	"github.com/nomadish/nomadish/server/planapply/planapplytest"
	"github.com/nomadish/nomadish/structs"
)

// An in-place update places an alloc again under its ID: the fit check
// counts the new copy and drops the old one. Two in-place growths on one node
// from two plans (two schedulers that each saw room for their own growth)
// would over-commit together: the first commits, the second is rejected.
func TestInPlaceGrowthsDoNotOverCommit(t *testing.T) {
	store := planapplytest.NewStore()
	store.UpsertNode(planapplytest.Node("n1", 1000, 1000))
	x, y := planapplytest.Alloc("x", "n1", 400, 100), planapplytest.Alloc("y", "n1", 400, 100)
	store.UpsertAlloc(x)
	store.UpsertAlloc(y)
	a := start(t, store)

	grow := func(old *structs.Allocation, cpu int64) *structs.Plan {
		p := newPlan("e-"+old.ID, 50)
		n := planapplytest.Alloc(old.ID, "n1", cpu, 100) // same ID: in place
		p.AppendAlloc(n)
		return p
	}
	// x alone grows to 600: 600 + 400 fits, counted once (not 400 + 600 + 400).
	px := grow(x, 600)
	res, err := a.Submit(context.Background(), px)
	if err != nil {
		t.Fatal(err)
	}
	if full, _, _ := res.FullCommit(px); !full {
		t.Fatalf("in-place growth that fits rejected: %+v", res)
	}
	// y grows to 500: 600 + 500 > 1000, rejected.
	py := grow(y, 500)
	res, err = a.Submit(context.Background(), py)
	if err != nil {
		t.Fatal(err)
	}
	if res.RefreshIndex == 0 || len(res.RejectedNodes) != 1 {
		t.Fatalf("over-committing in-place growth accepted: %+v", res)
	}
	if cpu := committedCPU(store, "n1"); cpu != 1000 {
		t.Fatalf("committed %d, want 600 + 400", cpu)
	}
}

// Both growths in one plan: the node's part is rejected as a whole.
func TestInPlaceGrowthsInOnePlanRejected(t *testing.T) {
	store := planapplytest.NewStore()
	store.UpsertNode(planapplytest.Node("n1", 1000, 1000))
	store.UpsertAlloc(planapplytest.Alloc("x", "n1", 400, 100))
	store.UpsertAlloc(planapplytest.Alloc("y", "n1", 400, 100))
	a := start(t, store)
	p := newPlan("e1", 50)
	p.AppendAlloc(planapplytest.Alloc("x", "n1", 600, 100))
	p.AppendAlloc(planapplytest.Alloc("y", "n1", 500, 100))
	res, err := a.Submit(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.RejectedNodes) != 1 || committedCPU(store, "n1") != 800 {
		t.Fatalf("result %+v, committed %d", res, committedCPU(store, "n1"))
	}
}
