package planapply_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/nomadish/nomadish/server/planapply"
	"github.com/nomadish/nomadish/server/planapply/planapplytest"
	"github.com/nomadish/nomadish/structs"
)

func newPlan(evalID string, prio int) *structs.Plan {
	p := structs.NewPlan(&structs.Evaluation{ID: evalID, Priority: prio}, &structs.Job{ID: "job", Namespace: "default"})
	return p
}

// start runs an applier over store until the test ends.
func start(t *testing.T, store *planapplytest.Store) *planapply.Applier {
	t.Helper()
	a := planapply.New(planapply.Config{State: store, Commit: store})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return a
}

func committedCPU(store *planapplytest.Store, nodeID string) int64 {
	snap, _ := store.Snapshot()
	allocs, _ := snap.LiveAllocsByNode(nodeID)
	var cpu int64
	for _, a := range allocs {
		if !a.TerminalStatus() {
			cpu += a.AllocatedResources.Comparable().CpuShares
		}
	}
	return cpu
}

func TestConcurrentPlansNeverOverCommit(t *testing.T) {
	store := planapplytest.NewStore()
	store.UpsertNode(planapplytest.Node("n1", 1000, 8192))
	a := start(t, store)

	var wg sync.WaitGroup
	results := make([]*structs.PlanResult, 10)
	errs := make([]error, 10)
	for i := range 10 {
		wg.Go(func() {
			p := newPlan(fmt.Sprintf("e%d", i), 50)
			p.AppendAlloc(planapplytest.Alloc(fmt.Sprintf("a%d", i), "n1", 300, 100))
			results[i], errs[i] = a.Submit(context.Background(), p)
		})
	}
	wg.Wait()
	accepted := 0
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("plan %d: %v", i, errs[i])
		}
		if len(r.NodeAllocation["n1"]) == 1 {
			accepted++
			if r.RefreshIndex != 0 || r.AllocIndex == 0 || len(r.RejectedNodes) != 0 {
				t.Fatalf("accepted plan %d: %+v", i, r)
			}
			continue
		}
		if r.RefreshIndex == 0 || !slices.Equal(r.RejectedNodes, []string{"n1"}) || r.AllocIndex != 0 {
			t.Fatalf("rejected plan %d: %+v", i, r)
		}
	}
	if accepted != 3 {
		t.Fatalf("accepted %d plans, want 3", accepted)
	}
	if cpu := committedCPU(store, "n1"); cpu > 1000 || cpu != 900 {
		t.Fatalf("committed %d MHz on a 1000 MHz node", cpu)
	}
	if n := len(store.Commits()); n != 3 {
		t.Fatalf("%d raft entries, want 3", n)
	}
}

func TestMissingOrDownNodeRejected(t *testing.T) {
	store := planapplytest.NewStore()
	down := planapplytest.Node("down", 1000, 1000)
	down.Status = structs.NodeStatusDown
	store.UpsertNode(down)
	old := planapplytest.Alloc("old", "down", 100, 100)
	store.UpsertAlloc(old)
	a := start(t, store)

	p := newPlan("e1", 50)
	p.AppendAlloc(planapplytest.Alloc("a1", "missing", 100, 100))
	p.AppendAlloc(planapplytest.Alloc("a2", "down", 100, 100))
	res, err := a.Submit(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.RejectedNodes, []string{"down", "missing"}) || res.RefreshIndex == 0 {
		t.Fatalf("result %+v", res)
	}
	if len(store.Commits()) != 0 {
		t.Fatal("committed a fully rejected plan")
	}

	// Stopping allocs on a down node is fine.
	p = newPlan("e2", 50)
	p.AppendStoppedAlloc(old, "node down", structs.AllocClientStatusLost)
	res, err = a.Submit(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if res.RefreshIndex != 0 || len(res.NodeUpdate["down"]) != 1 || res.AllocIndex == 0 {
		t.Fatalf("stop result %+v", res)
	}
	c := store.Commits()
	if len(c) != 1 || len(c[0].AllocsStopped) != 1 || c[0].EvalID != "e2" || c[0].UpdatedAt == 0 || c[0].Job == nil {
		t.Fatalf("commit %+v", c)
	}
}

func TestStopsFreeRoomInSamePlan(t *testing.T) {
	store := planapplytest.NewStore()
	store.UpsertNode(planapplytest.Node("n1", 1000, 1000))
	old := planapplytest.Alloc("old", "n1", 800, 100)
	store.UpsertAlloc(old)
	a := start(t, store)

	p := newPlan("e1", 50)
	p.AppendAlloc(planapplytest.Alloc("new", "n1", 900, 100))
	res, err := a.Submit(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if res.RefreshIndex == 0 {
		t.Fatalf("placed without room: %+v", res)
	}
	p = newPlan("e2", 50)
	p.AppendStoppedAlloc(old, "replaced", "")
	p.AppendAlloc(planapplytest.Alloc("new", "n1", 900, 100))
	res, err = a.Submit(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if full, _, _ := res.FullCommit(p); !full || res.RefreshIndex != 0 {
		t.Fatalf("stop did not free room: %+v", res)
	}
	if cpu := committedCPU(store, "n1"); cpu != 900 {
		t.Fatalf("committed %d", cpu)
	}
}

func TestPreemptionFreesRoom(t *testing.T) {
	store := planapplytest.NewStore()
	store.UpsertNode(planapplytest.Node("n1", 1000, 1000))
	low := planapplytest.Alloc("low", "n1", 800, 100)
	store.UpsertAlloc(low)
	a := start(t, store)

	p := newPlan("e1", 90)
	ev := low.Copy()
	ev.DesiredStatus = structs.AllocDesiredStatusEvict
	p.NodePreemptions["n1"] = []*structs.Allocation{ev}
	p.AppendAlloc(planapplytest.Alloc("high", "n1", 900, 100))
	res, err := a.Submit(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if res.RefreshIndex != 0 || len(store.Commits()[0].AllocsPreempted) != 1 {
		t.Fatalf("result %+v", res)
	}
}

func TestSeveralAllocsOfOnePlanOnOneNode(t *testing.T) {
	store := planapplytest.NewStore()
	store.UpsertNode(planapplytest.Node("n1", 1000, 1000))
	a := start(t, store)
	p := newPlan("e1", 50)
	for i := range 3 {
		p.AppendAlloc(planapplytest.Alloc(fmt.Sprintf("a%d", i), "n1", 400, 100))
	}
	res, err := a.Submit(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.RejectedNodes, []string{"n1"}) || len(store.Commits()) != 0 {
		t.Fatalf("3x400 MHz committed on 1000 MHz: %+v", res)
	}
}

func TestMixedNodesCommitsOnlyFittingPart(t *testing.T) {
	store := planapplytest.NewStore()
	store.UpsertNode(planapplytest.Node("big", 1000, 1000))
	store.UpsertNode(planapplytest.Node("small", 100, 1000))
	a := start(t, store)
	p := newPlan("e1", 50)
	p.AppendAlloc(planapplytest.Alloc("a1", "big", 500, 100))
	p.AppendAlloc(planapplytest.Alloc("a2", "small", 500, 100))
	res, err := a.Submit(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	snap, _ := store.Snapshot()
	idx, _ := snap.LatestIndex()
	if len(res.NodeAllocation["big"]) != 1 || len(res.NodeAllocation["small"]) != 0 ||
		!slices.Equal(res.RejectedNodes, []string{"small"}) || res.AllocIndex != idx || res.RefreshIndex != idx-1 {
		t.Fatalf("result %+v (latest index %d)", res, idx)
	}
	c := store.Commits()
	if len(c) != 1 || len(c[0].AllocsPlaced) != 1 || c[0].AllocsPlaced[0].ID != "a1" {
		t.Fatalf("commits %+v", c)
	}
	if full, want, got := res.FullCommit(p); full || want != 2 || got != 1 {
		t.Fatalf("FullCommit %v %d %d", full, want, got)
	}
}

func TestAllAtOnceCommitsNothingPartial(t *testing.T) {
	store := planapplytest.NewStore()
	store.UpsertNode(planapplytest.Node("big", 1000, 1000))
	a := start(t, store)
	p := newPlan("e1", 50)
	p.Job.AllAtOnce = true
	p.AppendAlloc(planapplytest.Alloc("a1", "big", 500, 100))
	p.AppendAlloc(planapplytest.Alloc("a2", "missing", 500, 100))
	res, err := a.Submit(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.NodeAllocation) != 0 || res.RefreshIndex == 0 || len(store.Commits()) != 0 {
		t.Fatalf("result %+v", res)
	}
}

func TestCommitError(t *testing.T) {
	store := planapplytest.NewStore()
	store.UpsertNode(planapplytest.Node("n1", 1000, 1000))
	store.FailCommit = planapplytest.ErrCommit
	a := start(t, store)
	p := newPlan("e1", 50)
	p.AppendAlloc(planapplytest.Alloc("a1", "n1", 500, 100))
	if _, err := a.Submit(context.Background(), p); !errors.Is(err, planapplytest.ErrCommit) {
		t.Fatalf("err %v", err)
	}
}

func TestQueueOrderAndStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := planapplytest.NewStore()
		store.UpsertNode(planapplytest.Node("n1", 10000, 10000))
		a := planapply.New(planapply.Config{State: store, Commit: store})
		var wg sync.WaitGroup
		cancelled, cancel := context.WithCancel(context.Background())
		for i, prio := range []int{10, 90, 50, 90} {
			ctx := context.Background()
			if i == 0 {
				ctx = cancelled
			}
			wg.Go(func() {
				p := newPlan(fmt.Sprintf("e%d-p%d", i, prio), prio)
				p.AppendAlloc(planapplytest.Alloc(fmt.Sprintf("a%d", i), "n1", 1, 1))
				a.Submit(ctx, p)
			})
			synctest.Wait() // queued in this order
		}
		cancel() // the priority-10 plan is dropped, never committed
		synctest.Wait()
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { a.Run(ctx); close(done) }()
		wg.Wait()
		var order []string
		for _, c := range store.Commits() {
			order = append(order, c.EvalID)
		}
		if want := []string{"e1-p90", "e3-p90", "e2-p50"}; !slices.Equal(order, want) {
			t.Fatalf("commit order %v, want %v", order, want)
		}
		stop()
		<-done
		// With Run stopped, a Submit waits for its ctx.
		sctx, scancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { _, err := a.Submit(sctx, newPlan("late", 50)); errc <- err }()
		synctest.Wait()
		scancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("late submit: %v", err)
		}
	})
}

func TestRunStopFailsQueuedPlans(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := planapplytest.NewStore()
		store.UpsertNode(planapplytest.Node("n1", 1000, 1000))
		a := planapply.New(planapply.Config{State: store, Commit: store})
		errc := make(chan error, 2)
		for i := range 2 {
			go func() {
				p := newPlan(fmt.Sprintf("e%d", i), 50)
				p.AppendAlloc(planapplytest.Alloc(fmt.Sprintf("a%d", i), "n1", 1, 1))
				_, err := a.Submit(context.Background(), p)
				errc <- err
			}()
		}
		synctest.Wait()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		a.Run(ctx) // leadership already lost: queued plans fail
		for range 2 {
			if err := <-errc; !errors.Is(err, planapply.ErrStopped) {
				t.Fatalf("queued plan got %v", err)
			}
		}
		if len(store.Commits()) != 0 {
			t.Fatal("committed after stop")
		}
	})
}

// A failed alloc updated in place (its FollowupEvalID recorded) is not
// counted twice, uses no room and needs no ready node.
func TestInPlaceUpdateOfFailedAlloc(t *testing.T) {
	store := planapplytest.NewStore()
	store.UpsertNode(planapplytest.Node("n1", 1000, 1000))
	down := planapplytest.Node("down", 1000, 1000)
	down.Status = structs.NodeStatusDown
	store.UpsertNode(down)
	running := planapplytest.Alloc("running", "n1", 600, 100)
	store.UpsertAlloc(running)
	failedHere := planapplytest.Alloc("failed", "n1", 300, 100)
	failedHere.ClientStatus = structs.AllocClientStatusFailed
	store.UpsertAlloc(failedHere)
	failedDown := planapplytest.Alloc("failed-down", "down", 300, 100)
	failedDown.ClientStatus = structs.AllocClientStatusFailed
	store.UpsertAlloc(failedDown)
	a := start(t, store)

	p := newPlan("e1", 50)
	for _, f := range []*structs.Allocation{failedHere, failedDown} {
		u := f.Copy()
		u.FollowupEvalID = "e2"
		p.AppendAlloc(u)
	}
	// 600 running + 400 new = 1000: fits only if the failed alloc counts 0.
	p.AppendAlloc(planapplytest.Alloc("new", "n1", 400, 100))
	res, err := a.Submit(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if full, _, _ := res.FullCommit(p); !full || res.RefreshIndex != 0 {
		t.Fatalf("result %+v", res)
	}
	if cpu := committedCPU(store, "n1"); cpu != 1000 {
		t.Fatalf("committed %d MHz on n1, want 1000", cpu)
	}
}
