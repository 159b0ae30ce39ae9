package endpoints

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
	"github.com/nomadish/nomadish/structs/structstest"
)

// Alloc.GetAllocs reads allocations by ID for any registered node's secret
// (a client waits on a previous allocation on another node); any other
// caller is an ACL token and sees only the namespaces where it may
// read-job; an unknown token is refused and an anonymous caller sees
// nothing the anonymous policy does not grant.
func TestGetAllocsNeedsNodeSecretOrReadJob(t *testing.T) {
	d, e := aclDeps(t)
	root := bootstrap(t, e)
	mgmt := structs.WriteRequest{AuthToken: root.SecretID}
	if err := e.UpsertPolicies(&structs.ACLPolicyUpsertRequest{WriteRequest: mgmt, Policies: []*structs.ACLPolicy{
		{Name: "a", Rules: `namespace "team-a" { policy = "read" }`},
	}}, &structs.GenericResponse{}); err != nil {
		t.Fatal(err)
	}
	var tr structs.ACLTokenUpsertResponse
	if err := e.UpsertTokens(&structs.ACLTokenUpsertRequest{WriteRequest: mgmt, Tokens: []*structs.ACLToken{{Policies: []string{"a"}}}}, &tr); err != nil {
		t.Fatal(err)
	}
	teamA := tr.Tokens[0].SecretID
	st := d.State()
	if err := st.UpsertNode(300, structstest.Node("n1")); err != nil {
		t.Fatal(err)
	}
	mk := func(ns string) *structs.Allocation {
		return &structs.Allocation{ID: structs.GenerateUUID(), Namespace: ns, JobID: "web", Job: structstest.Job("web"),
			TaskGroup: "web", NodeID: "n2", EvalID: structs.GenerateUUID()}
	}
	a, b := mk("team-a"), mk("team-b")
	if err := st.UpsertAllocs(301, []*structs.Allocation{a, b}); err != nil {
		t.Fatal(err)
	}
	get := func(token string) ([]string, error) {
		var r structs.AllocsGetResponse
		err := (&Alloc{d: d}).GetAllocs(&structs.AllocsGetRequest{AllocIDs: []string{a.ID, b.ID},
			QueryOptions: structs.QueryOptions{AuthToken: token}}, &r)
		var ns []string
		for _, x := range r.Allocs {
			ns = append(ns, x.Namespace)
		}
		return ns, err
	}
	for _, c := range []struct {
		name, token string
		want        []string
	}{
		{"any node's secret reads every allocation", "secret-n1", []string{"team-a", "team-b"}},
		{"management reads every allocation", root.SecretID, []string{"team-a", "team-b"}},
		{"a team-a token reads team-a's only", teamA, []string{"team-a"}},
		{"anonymous reads nothing", "", nil},
	} {
		got, err := get(c.token)
		if err != nil || len(got) != len(c.want) || (len(got) > 0 && (got[0] != c.want[0] || got[len(got)-1] != c.want[len(c.want)-1])) {
			t.Errorf("%s: got %v %v, want %v", c.name, got, err, c.want)
		}
	}
	if _, err := get("not-a-token-or-secret"); err == nil {
		t.Error("an unknown token read allocations")
	}
}
