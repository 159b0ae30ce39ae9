package endpoints

import (
	"testing"
	"time"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// TestGetClientAllocsMigrateTokens: a node's GetClientAllocs carries a
// migrate token, keyed by the replacement's ID, for a migrating allocation
// whose previous allocation is on another node, made with that node's
// secret; none for a local previous allocation, a group without migrate,
// or a stopped replacement.
func TestGetClientAllocsMigrateTokens(t *testing.T) {
	d := testDeps(t)
	st := d.State()
	for i, n := range []*structs.Node{structstest.Node("n1"), structstest.Node("n2")} {
		if err := st.UpsertNode(uint64(10+i), n); err != nil {
			t.Fatal(err)
		}
	}
	job := func(migrate bool) *structs.Job {
		j := structstest.Job("web")
		j.TaskGroups[0].EphemeralDisk = &structs.EphemeralDisk{SizeMB: 10, Migrate: migrate}
		return j
	}
	alloc := func(node, prev string, j *structs.Job) *structs.Allocation {
		return &structs.Allocation{ID: structs.GenerateUUID(), Namespace: "default", JobID: "web", Job: j, NodeID: node,
			TaskGroup: j.TaskGroups[0].Name, EvalID: "e1", PreviousAllocation: prev, DesiredStatus: structs.AllocDesiredStatusRun}
	}
	prev1, prev2, prev3, prev4 := alloc("n1", "", job(true)), alloc("n2", "", job(true)), alloc("n1", "", job(false)), alloc("n1", "", job(true))
	remote := alloc("n2", prev1.ID, job(true))     // token, with n1's secret
	local := alloc("n2", prev2.ID, job(true))      // previous on n2: none
	noMigrate := alloc("n2", prev3.ID, job(false)) // none
	stopped := alloc("n2", prev4.ID, job(true))
	stopped.DesiredStatus = structs.AllocDesiredStatusStop
	if err := st.UpsertAllocs(20, []*structs.Allocation{prev1, prev2, prev3, prev4, remote, local, noMigrate, stopped}); err != nil {
		t.Fatal(err)
	}
	e := &Node{d: d}
	var reply structs.NodeClientAllocsResponse
	if err := e.GetClientAllocs(&structs.NodeSpecificRequest{NodeID: "n2", SecretID: "secret-n2"}, &reply); err != nil {
		t.Fatal(err)
	}
	if len(reply.Allocs) != 5 {
		t.Fatalf("allocs: %v", reply.Allocs)
	}
	if len(reply.MigrateTokens) != 1 {
		t.Fatalf("tokens: %v, want one for %s", reply.MigrateTokens, remote.ID)
	}
	tok := reply.MigrateTokens[remote.ID]
	if !structs.CompareMigrateToken(prev1.ID, "secret-n1", tok) {
		t.Fatalf("token %q does not check with n1's secret for %s", tok, prev1.ID)
	}
	if structs.CompareMigrateToken(prev1.ID, "secret-n2", tok) {
		t.Fatal("token checks with the requesting node's own secret")
	}
}

// TestGetClientAllocsWholeMapWhenTheWaitEnds: a blocking GetClientAllocs
// that nothing wakes answers, when its time is up, with the node's whole
// map, never an empty one (the client would destroy what it does not see);
// a client report does not end the wait, a placement does.
func TestGetClientAllocsWholeMapWhenTheWaitEnds(t *testing.T) {
	d := testDeps(t)
	st := d.State()
	if err := st.UpsertNode(10, structstest.Node("n1")); err != nil {
		t.Fatal(err)
	}
	j := structstest.Job("web")
	place := func(index uint64) *structs.Allocation {
		a := &structs.Allocation{ID: structs.GenerateUUID(), Namespace: "default", JobID: "web", Job: j, NodeID: "n1",
			TaskGroup: j.TaskGroups[0].Name, EvalID: "e1", DesiredStatus: structs.AllocDesiredStatusRun}
		if err := st.UpsertAllocs(index, []*structs.Allocation{a}); err != nil {
			t.Fatal(err)
		}
		return a
	}
	a1 := place(20)
	e := &Node{d: d}
	ask := func(min uint64, wait time.Duration) (structs.NodeClientAllocsResponse, time.Duration) {
		req := &structs.NodeSpecificRequest{NodeID: "n1", SecretID: "secret-n1"}
		req.MinQueryIndex, req.MaxQueryTime = min, wait
		var reply structs.NodeClientAllocsResponse
		start := time.Now()
		if err := e.GetClientAllocs(req, &reply); err != nil {
			t.Fatal(err)
		}
		return reply, time.Since(start)
	}
	first, _ := ask(0, 0)
	if len(first.Allocs) != 1 || first.Index != 20 {
		t.Fatalf("first answer: %v at %d", first.Allocs, first.Index)
	}
	// Nothing changes: the wait runs out and the answer is still whole.
	timedOut, _ := ask(first.Index, 50*time.Millisecond)
	if len(timedOut.Allocs) != 1 || timedOut.Allocs[a1.ID] != 20 || timedOut.Index != 20 {
		t.Fatalf("answer after the wait: %v at %d, want %s at 20", timedOut.Allocs, timedOut.Index, a1.ID)
	}
	// A client report (index 30) does not wake the watch; a placement (40) does.
	go func() {
		time.Sleep(20 * time.Millisecond)
		_ = st.UpdateAllocsFromClient(30, []*structs.Allocation{{ID: a1.ID, ClientStatus: structs.AllocClientStatusRunning}}, nil)
		time.Sleep(20 * time.Millisecond)
		place(40)
	}()
	woken, _ := ask(first.Index, time.Minute)
	if len(woken.Allocs) != 2 || woken.Index != 40 {
		t.Fatalf("woken answer: %v at %d, want two allocations at 40", woken.Allocs, woken.Index)
	}
}
