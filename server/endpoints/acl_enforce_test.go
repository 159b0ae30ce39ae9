package endpoints

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// TestAllowAllocOperation: client endpoints need their capability in the
// allocation's namespace, and exec into a raw_exec task alloc-node-exec as
// well; exec into an isolated driver's task does not.
func TestAllowAllocOperation(t *testing.T) {
	d, e := aclDeps(t)
	root := bootstrap(t, e)
	mgmt := structs.WriteRequest{AuthToken: root.SecretID}
	if err := e.UpsertPolicies(&structs.ACLPolicyUpsertRequest{WriteRequest: mgmt, Policies: []*structs.ACLPolicy{
		{Name: "w", Rules: `namespace "team-a" { policy = "write" }`},
		{Name: "ne", Rules: `namespace "team-a" { capabilities = ["alloc-node-exec"] }`},
		{Name: "r", Rules: `namespace "team-a" { policy = "read" }`},
	}}, &structs.GenericResponse{}); err != nil {
		t.Fatal(err)
	}
	token := func(policies ...string) string {
		var r structs.ACLTokenUpsertResponse
		if err := e.UpsertTokens(&structs.ACLTokenUpsertRequest{WriteRequest: mgmt, Tokens: []*structs.ACLToken{{Policies: policies}}}, &r); err != nil {
			t.Fatal(err)
		}
		return r.Tokens[0].SecretID
	}
	writer, nodeExec, reader := token("w"), token("w", "ne"), token("r")

	job := structstest.Job("web")
	job.Namespace = "team-a"
	tg := job.TaskGroups[0]
	raw, iso := *tg.Tasks[0], *tg.Tasks[0]
	raw.Name, raw.Driver = "raw", "raw_exec"
	iso.Name, iso.Driver = "iso", "exec"
	tg.Tasks = []*structs.Task{&raw, &iso}
	alloc := &structs.Allocation{ID: structs.GenerateUUID(), Namespace: "team-a", JobID: "web", Job: job, TaskGroup: tg.Name,
		NodeID: "n1", EvalID: structs.GenerateUUID()}
	if err := d.State().UpsertAllocs(200, []*structs.Allocation{alloc}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, secret, task, capability string
		allowed                        bool
	}{
		{"write reads logs", writer, "raw", "read-logs", true},
		{"read can't read logs", reader, "raw", "read-logs", false},
		{"write execs into exec", writer, "iso", "alloc-exec", true},
		{"write can't exec into raw_exec", writer, "raw", "alloc-exec", false},
		{"no task: any raw_exec task counts", writer, "", "alloc-exec", false},
		{"alloc-node-exec execs into raw_exec", nodeExec, "raw", "alloc-exec", true},
		{"read can't exec", reader, "iso", "alloc-exec", false},
		{"anonymous can't signal", "", "iso", "alloc-lifecycle", false},
		{"management can do all", root.SecretID, "raw", "alloc-exec", true},
	}
	for _, c := range cases {
		args := &structs.ACLAllowAllocRequest{AllocID: alloc.ID, Task: c.task, Capability: c.capability,
			QueryOptions: structs.QueryOptions{AuthToken: c.secret}}
		err := e.AllowAllocOperation(args, &structs.GenericResponse{})
		if (err == nil) != c.allowed {
			t.Errorf("%s: err %v, want allowed %v", c.name, err, c.allowed)
		}
	}
}
