package endpoints

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// searchState fills d's store with two nodes, a node pool, three
// allocations (one in namespace team-b), a deployment and two variables.
func searchState(t *testing.T, d *Deps) {
	t.Helper()
	st := d.State()
	for i, name := range []string{"worker-east", "worker-west"} {
		n := &structs.Node{ID: fmt.Sprintf("%d1aaaaaa-0000-0000-0000-000000000000", i+1), Name: name, Datacenter: "dc1",
			NodePool: "default", Status: structs.NodeStatusReady, SecretID: structs.GenerateUUID()}
		if err := st.UpsertNode(uint64(10+i), n); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.UpsertNodePools(20, []*structs.NodePool{{Name: "gpu-large"}}); err != nil {
		t.Fatal(err)
	}
	allocs := []*structs.Allocation{
		{ID: "abc00000-0000-0000-0000-000000000001", Namespace: "default", JobID: "web", NodeID: "n", EvalID: "e"},
		{ID: "abc00000-0000-0000-0000-000000000002", Namespace: "default", JobID: "web", NodeID: "n", EvalID: "e"},
		{ID: "abd00000-0000-0000-0000-000000000003", Namespace: "team-b", JobID: "api", NodeID: "n", EvalID: "e"},
	}
	if err := st.UpsertAllocs(30, allocs); err != nil {
		t.Fatal(err)
	}
	if err := st.UpsertDeployment(31, &structs.Deployment{ID: "abc99999-0000-0000-0000-000000000000", Namespace: "default", JobID: "web"}); err != nil {
		t.Fatal(err)
	}
	for i, p := range []string{"app/web/db", "app/api/key"} {
		v := &structs.VariableEncrypted{VariableMetadata: structs.VariableMetadata{Namespace: "default", Path: p},
			VariableData: structs.VariableData{Data: []byte("x"), KeyID: "k"}}
		if resp := st.VarApply(uint64(40+i), &structs.VarApplyStateRequest{Op: structs.VarOpSet, Var: v}); resp.Error != "" {
			t.Fatal(resp.Error)
		}
	}
}

func TestPrefixSearchContexts(t *testing.T) {
	d := testDeps(t)
	searchState(t, d)
	e := &Search{d: d}
	for _, tc := range []struct {
		prefix, ctx, ns string
		want            []string
	}{
		{"abc", structs.SearchAllocs, "", []string{"abc00000-0000-0000-0000-000000000001", "abc00000-0000-0000-0000-000000000002"}},
		{"ab", structs.SearchAllocs, "*", []string{"abc00000-0000-0000-0000-000000000001", "abc00000-0000-0000-0000-000000000002", "abd00000-0000-0000-0000-000000000003"}},
		{"abc9", structs.SearchDeployments, "", []string{"abc99999-0000-0000-0000-000000000000"}},
		{"21", structs.SearchNodes, "", []string{"21aaaaaa-0000-0000-0000-000000000000"}},
		{"gpu", structs.SearchNodePools, "", []string{"gpu-large"}},
		{"app/", structs.SearchVariables, "", []string{"app/api/key", "app/web/db"}},
		{"zzz", structs.SearchJobs, "", []string{}},
	} {
		var reply structs.SearchResponse
		args := &structs.SearchRequest{Prefix: tc.prefix, Context: tc.ctx, QueryOptions: structs.QueryOptions{Namespace: tc.ns}}
		if err := e.PrefixSearch(args, &reply); err != nil {
			t.Fatalf("%s %q: %v", tc.ctx, tc.prefix, err)
		}
		if got := reply.Matches[tc.ctx]; !slices.Equal(got, tc.want) || reply.Truncations[tc.ctx] || len(reply.Matches) != 1 {
			t.Errorf("%s %q: %v (%v), want %v", tc.ctx, tc.prefix, reply.Matches, reply.Truncations, tc.want)
		}
	}

	var all structs.SearchResponse
	if err := e.PrefixSearch(&structs.SearchRequest{Prefix: "abc", Context: structs.SearchAll}, &all); err != nil {
		t.Fatal(err)
	}
	if len(all.Matches) != len(prefixContexts) || len(all.Matches[structs.SearchAllocs]) != 2 || len(all.Matches[structs.SearchDeployments]) != 1 {
		t.Fatalf("all: %v", all.Matches)
	}
	err := e.PrefixSearch(&structs.SearchRequest{Prefix: "a", Context: "quotas"}, &structs.SearchResponse{})
	if code, msg := structs.ErrorCode(err); code != structs.ErrCodeBadRequest || !strings.Contains(msg, "quotas") {
		t.Fatalf("unknown context: %v", err)
	}
}

func TestFuzzySearch(t *testing.T) {
	d := testDeps(t)
	searchState(t, d)
	e := &Search{d: d}
	var reply structs.FuzzySearchResponse
	if err := e.FuzzySearch(&structs.FuzzySearchRequest{Text: "WEST", Context: structs.SearchNodes}, &reply); err != nil {
		t.Fatal(err)
	}
	if m := reply.Matches[structs.SearchNodes]; len(m) != 1 || m[0].ID != "worker-west" || m[0].Scope[0] != "21aaaaaa-0000-0000-0000-000000000000" {
		t.Fatalf("nodes %+v", m)
	}
	// Exact, then prefix, then contains.
	reply = structs.FuzzySearchResponse{}
	if err := e.FuzzySearch(&structs.FuzzySearchRequest{Text: "web", Context: structs.SearchVariables}, &reply); err != nil {
		t.Fatal(err)
	}
	if m := reply.Matches[structs.SearchVariables]; len(m) != 1 || m[0].ID != "app/web/db" || m[0].Scope[0] != "default" {
		t.Fatalf("vars %+v", m)
	}
	// A UUID-like text matches allocation IDs by prefix; a name-like one
	// matches none.
	reply = structs.FuzzySearchResponse{}
	if err := e.FuzzySearch(&structs.FuzzySearchRequest{Text: "abc0", Context: structs.SearchAll}, &reply); err != nil {
		t.Fatal(err)
	}
	if m := reply.Matches[structs.SearchAllocs]; len(m) != 2 || m[0].Scope[1] != "web" {
		t.Fatalf("allocs %+v", m)
	}
	reply = structs.FuzzySearchResponse{}
	if err := e.FuzzySearch(&structs.FuzzySearchRequest{Text: "worker", Context: structs.SearchAllocs}, &reply); err != nil {
		t.Fatal(err)
	}
	if m := reply.Matches[structs.SearchAllocs]; len(m) != 0 {
		t.Fatalf("allocs by name %+v", m)
	}
	err := e.FuzzySearch(&structs.FuzzySearchRequest{Text: "w", Context: structs.SearchAll}, &structs.FuzzySearchResponse{})
	if code, _ := structs.ErrorCode(err); code != structs.ErrCodeBadRequest {
		t.Fatalf("short text: %v", err)
	}
}

func TestFuzzySearchRanksAndTruncates(t *testing.T) {
	items := []searchItem{{id: "xweb", name: "xweb"}, {id: "web-2", name: "web-2"}, {id: "web", name: "web"}, {id: "web-1", name: "web-1"}}
	for i := range structs.SearchFuzzyLimit {
		items = append(items, searchItem{id: fmt.Sprintf("zz-web-%03d", i), name: fmt.Sprintf("zz-web-%03d", i)})
	}
	got, truncated := fuzzyMatch(structs.SearchNodePools, items, "web", searchView{ns: "default"})
	if !truncated || len(got) != structs.SearchFuzzyLimit {
		t.Fatalf("%d matches, truncated %v", len(got), truncated)
	}
	var first []string
	for _, m := range got[:5] {
		first = append(first, m.ID)
	}
	if want := []string{"web", "web-1", "web-2", "xweb", "zz-web-000"}; !slices.Equal(first, want) {
		t.Fatalf("order %v, want %v", first, want)
	}
}
