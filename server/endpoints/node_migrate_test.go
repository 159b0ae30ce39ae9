package endpoints

import (
	"testing"

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
