package state

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// TestNamespaceRulesInTheStore: the store itself (what every server
// applies) refuses deleting "default" or a namespace with a live job, and a
// new job in a namespace that does not exist; a refused write changes
// nothing.
func TestNamespaceRulesInTheStore(t *testing.T) {
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	job := structstest.Job("web")
	job.Namespace = "team-a"
	if code, _ := structs.ErrorCode(s.UpsertJob(1, job, nil)); code != 400 {
		t.Fatalf("job in unknown namespace: code %d", code)
	}
	if code, _ := structs.ErrorCode(s.DeleteNamespaces(2, []string{"default"})); code != 400 {
		t.Fatalf("delete default: code %d", code)
	}
	if idx, _ := s.LatestIndex(nil); idx != 0 {
		t.Fatalf("a refused write changed the index to %d", idx)
	}
	if err := s.UpsertNamespaces(3, []*structs.Namespace{{Name: "team-a"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertJob(4, job, nil); err != nil {
		t.Fatal(err)
	}
	if code, msg := structs.ErrorCode(s.DeleteNamespaces(5, []string{"team-a"})); code != 400 {
		t.Fatalf("delete with a live job: %d %s", code, msg)
	}
	if ns, _ := s.NamespaceByName(nil, "team-a"); ns == nil || ns.CreateIndex != 3 {
		t.Fatalf("namespace after refused delete: %+v", ns)
	}
	if err := s.DeleteJob(6, "team-a", "web", nil); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteNamespaces(7, []string{"team-a"}); err != nil {
		t.Fatal(err)
	}
	if code, _ := structs.ErrorCode(s.DeleteNamespaces(8, []string{"team-a"})); code != 404 {
		t.Fatalf("delete unknown: code %d", code)
	}
}
