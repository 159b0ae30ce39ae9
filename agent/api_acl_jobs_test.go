package agent

import (
	"testing"

	"github.com/hashicorp/nomad/api"
)

func aclTestJob(id, ns string) *api.Job {
	job := api.NewServiceJob(id, id, "global", 50)
	job.Namespace = &ns
	job.Datacenters = []string{"dc1"}
	tg := api.NewTaskGroup("web", 1)
	task := api.NewTask("web", "raw_exec")
	task.Config = map[string]any{"command": "/bin/sleep", "args": []string{"60"}}
	tg.AddTask(task)
	job.AddTaskGroup(tg)
	return job
}

// TestAPIACLJobEnforcement: with ACLs on, the anonymous user can't list
// jobs; a team-a write token registers, reads and stops jobs in team-a
// only, and lists only team-a's under namespace=*; a refused request
// changes nothing; the management token sees everything.
func TestAPIACLJobEnforcement(t *testing.T) {
	_, c := aclAgent(t)
	root, _, err := c.ACLTokens().Bootstrap(nil)
	if err != nil {
		t.Fatal(err)
	}
	mgmt, _ := api.NewClient(&api.Config{Address: c.Address(), SecretID: root.SecretID})
	for _, ns := range []string{"team-a", "team-b"} { // jobs need their namespace to exist
		if _, err := mgmt.Namespaces().Register(&api.Namespace{Name: ns}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := mgmt.ACLPolicies().Upsert(&api.ACLPolicy{Name: "team-a", Rules: `namespace "team-a" { policy = "write" }`}, nil); err != nil {
		t.Fatal(err)
	}
	tok, _, err := mgmt.ACLTokens().Create(&api.ACLToken{Name: "a", Type: "client", Policies: []string{"team-a"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	teamA, _ := api.NewClient(&api.Config{Address: c.Address(), SecretID: tok.SecretID})

	_, _, err = c.Jobs().List(nil)
	wantAPIError(t, err, 403, "Permission denied")
	_, _, err = c.Jobs().Register(aclTestJob("anon", "default"), nil)
	wantAPIError(t, err, 403, "Permission denied")

	if _, _, err := mgmt.Jobs().Register(aclTestJob("b-job", "team-b"), nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := teamA.Jobs().Register(aclTestJob("a-job", "team-a"), nil); err != nil {
		t.Fatal(err)
	}
	_, _, err = teamA.Jobs().Register(aclTestJob("sneaky", "team-b"), nil)
	wantAPIError(t, err, 403, "Permission denied")

	qa := &api.QueryOptions{Namespace: "team-a"}
	if jobs, _, err := teamA.Jobs().List(qa); err != nil || len(jobs) != 1 || jobs[0].ID != "a-job" {
		t.Fatalf("team-a list %+v, %v", jobs, err)
	}
	if j, _, err := teamA.Jobs().Info("a-job", qa); err != nil || *j.ID != "a-job" {
		t.Fatalf("team-a info %+v, %v", j, err)
	}
	qb := &api.QueryOptions{Namespace: "team-b"}
	_, _, err = teamA.Jobs().Info("b-job", qb)
	wantAPIError(t, err, 403, "Permission denied")
	_, _, err = teamA.Jobs().List(qb)
	wantAPIError(t, err, 403, "Permission denied")
	_, _, err = teamA.Jobs().Deregister("b-job", false, &api.WriteOptions{Namespace: "team-b"})
	wantAPIError(t, err, 403, "Permission denied")

	all := &api.QueryOptions{Namespace: "*"}
	if jobs, _, err := teamA.Jobs().List(all); err != nil || len(jobs) != 1 || jobs[0].ID != "a-job" {
		t.Fatalf("team-a list of * %+v, %v", jobs, err)
	}
	jobs, _, err := mgmt.Jobs().List(all)
	if err != nil || len(jobs) != 2 {
		t.Fatalf("management list of * %+v, %v", jobs, err)
	}
	// The refused stop changed nothing.
	if j, _, err := mgmt.Jobs().Info("b-job", qb); err != nil || j.Stop == nil || *j.Stop {
		t.Fatalf("b-job after a refused stop: %+v, %v", j, err)
	}
	if _, _, err := teamA.Jobs().Deregister("a-job", false, &api.WriteOptions{Namespace: "team-a"}); err != nil {
		t.Fatal(err)
	}
}
