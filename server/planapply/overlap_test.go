package planapply_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/nomadish/nomadish/server/planapply"
	"github.com/nomadish/nomadish/server/planapply/planapplytest"
	"github.com/nomadish/nomadish/structs"
)

// gatedStore holds the first commit until release is closed, and counts
// snapshots, to see what the applier does while a commit is in flight.
type gatedStore struct {
	*planapplytest.Store
	snapshots atomic.Int32
	commits   atomic.Int32
	started   chan struct{}
	release   chan struct{}
}

func (g *gatedStore) Snapshot() (planapply.Snapshot, error) {
	g.snapshots.Add(1)
	return g.Store.Snapshot()
}

func (g *gatedStore) ApplyPlanResults(req *structs.ApplyPlanResultsRequest) (uint64, error) {
	if g.commits.Add(1) == 1 {
		close(g.started)
		<-g.release
	}
	return g.Store.ApplyPlanResults(req)
}

// The next plan is checked while the previous one commits, against the
// state with the previous result in it: it cannot take the room the
// committing plan took, and its commit waits for the previous one.
func TestNextPlanCheckedWhilePreviousCommits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &gatedStore{Store: planapplytest.NewStore(), started: make(chan struct{}), release: make(chan struct{})}
		store.UpsertNode(planapplytest.Node("n1", 1000, 8192))
		store.UpsertNode(planapplytest.Node("n2", 1000, 8192))
		a := planapply.New(planapply.Config{State: store, Commit: store})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go a.Run(ctx)

		resA := make(chan *structs.PlanResult, 1)
		go func() {
			p := newPlan("eA", 50)
			p.AppendAlloc(planapplytest.Alloc("a1", "n1", 600, 100))
			r, err := a.Submit(context.Background(), p)
			if err != nil {
				t.Errorf("plan A: %v", err)
			}
			resA <- r
		}()
		<-store.started // A's commit is in flight, held
		resB := make(chan *structs.PlanResult, 1)
		go func() {
			p := newPlan("eB", 50)
			p.AppendAlloc(planapplytest.Alloc("b1", "n1", 600, 100))
			p.AppendAlloc(planapplytest.Alloc("b2", "n2", 600, 100))
			r, err := a.Submit(context.Background(), p)
			if err != nil {
				t.Errorf("plan B: %v", err)
			}
			resB <- r
		}()
		synctest.Wait()
		if n := store.snapshots.Load(); n != 2 {
			t.Fatalf("%d snapshots taken while A commits, want 2 (B checked in the meantime)", n)
		}
		if n := store.commits.Load(); n != 1 {
			t.Fatalf("%d commits started while A commits, want 1", n)
		}
		close(store.release)
		ra, rb := <-resA, <-resB
		if len(ra.NodeAllocation["n1"]) != 1 || ra.AllocIndex == 0 {
			t.Fatalf("plan A: %+v", ra)
		}
		if !slices.Equal(rb.RejectedNodes, []string{"n1"}) || len(rb.NodeAllocation["n2"]) != 1 {
			t.Fatalf("plan B should lose n1 (taken by A) and keep n2: %+v", rb)
		}
		if rb.RefreshIndex < ra.AllocIndex {
			t.Fatalf("B's refresh index %d is before A's commit %d", rb.RefreshIndex, ra.AllocIndex)
		}
		if rb.AllocIndex <= ra.AllocIndex {
			t.Fatalf("B committed at %d, not after A at %d", rb.AllocIndex, ra.AllocIndex)
		}
		if cpu := committedCPU(store.Store, "n1"); cpu != 600 {
			t.Fatalf("n1 has %d MHz committed, want 600", cpu)
		}
	})
}
