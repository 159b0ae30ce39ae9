package endpoints

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// TestTenancyACL: namespace writes need a management token and a namespace
// is read with any capability in it (lists keep those); node pools need
// their node_pool rule (read, write, delete) and lists keep the visible
// ones. Refusals are 403 and write nothing (the fake Apply fails the test
// on any unexpected write).
func TestTenancyACL(t *testing.T) {
	d, e := aclDeps(t)
	root := bootstrap(t, e)
	mgmt := structs.WriteRequest{AuthToken: root.SecretID}
	if err := e.UpsertPolicies(&structs.ACLPolicyUpsertRequest{WriteRequest: mgmt, Policies: []*structs.ACLPolicy{
		{Name: "a", Rules: `namespace "team-a" { policy = "read" }
node_pool "gpu" { policy = "read" }`},
	}}, &structs.GenericResponse{}); err != nil {
		t.Fatal(err)
	}
	var tr structs.ACLTokenUpsertResponse
	if err := e.UpsertTokens(&structs.ACLTokenUpsertRequest{WriteRequest: mgmt, Tokens: []*structs.ACLToken{{Policies: []string{"a"}}}}, &tr); err != nil {
		t.Fatal(err)
	}
	tok := tr.Tokens[0].SecretID
	st := d.State()
	if err := st.UpsertNamespaces(300, []*structs.Namespace{{Name: "team-a"}, {Name: "team-b"}}); err != nil {
		t.Fatal(err)
	}
	if err := st.UpsertNodePools(301, []*structs.NodePool{{Name: "gpu"}, {Name: "cpu"}}); err != nil {
		t.Fatal(err)
	}
	ns, np := &Namespace{d: d}, &NodePool{d: d}
	q := structs.QueryOptions{AuthToken: tok}
	w := structs.WriteRequest{AuthToken: tok}

	wantCode(t, ns.UpsertNamespaces(&structs.NamespaceUpsertRequest{WriteRequest: w, Namespaces: []*structs.Namespace{{Name: "x"}}}, &structs.GenericResponse{}), 403, "Permission denied")
	wantCode(t, ns.DeleteNamespaces(&structs.NamespaceDeleteRequest{WriteRequest: w, Namespaces: []string{"team-a"}}, &structs.GenericResponse{}), 403, "Permission denied")
	var nl structs.NamespaceListResponse
	if err := ns.ListNamespaces(&structs.NamespaceListRequest{QueryOptions: q}, &nl); err != nil {
		t.Fatal(err)
	}
	if len(nl.Namespaces) != 1 || nl.Namespaces[0].Name != "team-a" {
		t.Fatalf("token's namespace list: %+v", nl.Namespaces)
	}
	if err := ns.GetNamespace(&structs.NamespaceSpecificRequest{Name: "team-a", QueryOptions: q}, &structs.SingleNamespaceResponse{}); err != nil {
		t.Fatalf("read team-a: %v", err)
	}
	wantCode(t, ns.GetNamespace(&structs.NamespaceSpecificRequest{Name: "team-b", QueryOptions: q}, &structs.SingleNamespaceResponse{}), 403, "Permission denied")

	wantCode(t, np.UpsertNodePools(&structs.NodePoolUpsertRequest{WriteRequest: w, NodePools: []*structs.NodePool{{Name: "gpu"}}}, &structs.GenericResponse{}), 403, "Permission denied")
	wantCode(t, np.DeleteNodePools(&structs.NodePoolDeleteRequest{WriteRequest: w, Names: []string{"gpu"}}, &structs.GenericResponse{}), 403, "Permission denied")
	var pl structs.NodePoolListResponse
	if err := np.List(&structs.NodePoolListRequest{QueryOptions: q}, &pl); err != nil {
		t.Fatal(err)
	}
	if len(pl.NodePools) != 1 || pl.NodePools[0].Name != "gpu" {
		t.Fatalf("token's pool list: %+v", pl.NodePools)
	}
	if err := np.GetNodePool(&structs.NodePoolSpecificRequest{Name: "gpu", QueryOptions: q}, &structs.SingleNodePoolResponse{}); err != nil {
		t.Fatalf("read gpu: %v", err)
	}
	wantCode(t, np.GetNodePool(&structs.NodePoolSpecificRequest{Name: "cpu", QueryOptions: q}, &structs.SingleNodePoolResponse{}), 403, "Permission denied")
	wantCode(t, np.ListNodes(&structs.NodePoolSpecificRequest{Name: "gpu", QueryOptions: q}, &structs.NodePoolNodesResponse{}), 403, "Permission denied") // no node read

	// The management token sees every namespace and pool.
	if err := ns.ListNamespaces(&structs.NamespaceListRequest{QueryOptions: structs.QueryOptions{AuthToken: root.SecretID}}, &nl); err != nil || len(nl.Namespaces) != 3 {
		t.Fatalf("management namespace list: %+v %v", nl.Namespaces, err)
	}
}
