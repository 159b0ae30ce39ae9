package endpoints

import (
	"fmt"
	"sort"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// tenThousandAllocs fills d's store with 10,000 allocations written in 100
// raft indexes (100 per index, so create indexes repeat and IDs break the
// ties); every third one is complete. It returns them in Nomad's list
// order: create index, then ID.
func tenThousandAllocs(t *testing.T, d *Deps) []*structs.Allocation {
	t.Helper()
	var all []*structs.Allocation
	for batch := range 100 {
		allocs := make([]*structs.Allocation, 100)
		for i := range allocs {
			status := structs.AllocClientStatusRunning
			if (batch*100+i)%3 == 0 {
				status = structs.AllocClientStatusComplete
			}
			allocs[i] = &structs.Allocation{
				ID: structs.GenerateUUID(), Namespace: "default", JobID: fmt.Sprintf("web-%d", i%7),
				Name: "web.web[0]", TaskGroup: "web", NodeID: fmt.Sprintf("node-%d", i%10), EvalID: "eval-1", ClientStatus: status, DesiredStatus: structs.AllocDesiredStatusRun,
			}
		}
		if err := d.State().UpsertAllocs(uint64(1000+batch), allocs); err != nil {
			t.Fatal(err)
		}
		all = append(all, allocs...)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].CreateIndex != all[j].CreateIndex {
			return all[i].CreateIndex < all[j].CreateIndex
		}
		return all[i].ID < all[j].ID
	})
	return all
}

// pageAllocs lists every page of Alloc.List with q, returning the IDs in
// the order answered and the number of pages.
func pageAllocs(t *testing.T, d *Deps, q structs.QueryOptions) ([]string, int) {
	t.Helper()
	e := &Alloc{d: d}
	var ids []string
	pages := 0
	for {
		var reply structs.AllocListResponse
		if err := e.List(&structs.AllocListRequest{QueryOptions: q}, &reply); err != nil {
			t.Fatal(err)
		}
		pages++
		if q.PerPage > 0 && len(reply.Allocations) > int(q.PerPage) {
			t.Fatalf("page %d has %d rows, per_page %d", pages, len(reply.Allocations), q.PerPage)
		}
		for _, a := range reply.Allocations {
			ids = append(ids, a.ID)
		}
		if reply.NextToken == "" {
			return ids, pages
		}
		if pages > 10_000 {
			t.Fatal("paging does not end")
		}
		q.NextToken = reply.NextToken
	}
}

func TestAllocListPagesTenThousand(t *testing.T) {
	d := testDeps(t)
	want := tenThousandAllocs(t, d)

	got, pages := pageAllocs(t, d, structs.QueryOptions{Namespace: "*", PerPage: 100})
	if pages != 100 || len(got) != len(want) {
		t.Fatalf("%d pages, %d allocations; want 100 pages of all %d", pages, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i].ID {
			t.Fatalf("row %d is %s, want %s (create index %d)", i, got[i], want[i].ID, want[i].CreateIndex)
		}
	}

	rev, pages := pageAllocs(t, d, structs.QueryOptions{Namespace: "*", PerPage: 100, Reverse: true})
	if pages != 100 || len(rev) != len(want) {
		t.Fatalf("reverse: %d pages, %d allocations", pages, len(rev))
	}
	for i := range want {
		if rev[i] != want[len(want)-1-i].ID {
			t.Fatalf("reverse row %d is %s, want %s", i, rev[i], want[len(want)-1-i].ID)
		}
	}
}

func TestAllocListFilterPicksSubset(t *testing.T) {
	d := testDeps(t)
	all := tenThousandAllocs(t, d)
	var want []string
	for _, a := range all {
		if a.ClientStatus == structs.AllocClientStatusComplete && a.JobID == "web-3" {
			want = append(want, a.ID)
		}
	}
	got, pages := pageAllocs(t, d, structs.QueryOptions{
		Namespace: "default", PerPage: 100,
		Filter: `ClientStatus == "complete" and JobID matches "^web-3$"`,
	})
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("filter gave %d allocations, want %d", len(got), len(want))
	}
	if wantPages := (len(want) + 99) / 100; pages != wantPages {
		t.Fatalf("%d pages, want %d", pages, wantPages)
	}
}

func TestListBadFilterOrTokenIs400(t *testing.T) {
	d := testDeps(t)
	tenThousandAllocs(t, d)
	for _, q := range []structs.QueryOptions{
		{Filter: `ClientStatus = "running"`},
		{Filter: `NoSuchField == "x"`},
		{NextToken: "not-a-token"},
	} {
		var reply structs.AllocListResponse
		err := (&Alloc{d: d}).List(&structs.AllocListRequest{QueryOptions: q}, &reply)
		if code, msg := structs.ErrorCode(err); code != structs.ErrCodeBadRequest {
			t.Errorf("%+v: %d %s, want 400", q, code, msg)
		}
	}
	var ev structs.EvalListResponse
	err := (&Eval{d: d}).List(&structs.EvalListRequest{QueryOptions: structs.QueryOptions{Filter: "(("}}, &ev)
	if code, _ := structs.ErrorCode(err); code != structs.ErrCodeBadRequest {
		t.Errorf("eval list bad filter: %v", err)
	}
}

// Without paging options a list answers as it always did: every row, no
// token.
func TestAllocListUnpagedUnchanged(t *testing.T) {
	d := testDeps(t)
	want := tenThousandAllocs(t, d)
	var reply structs.AllocListResponse
	if err := (&Alloc{d: d}).List(&structs.AllocListRequest{}, &reply); err != nil {
		t.Fatal(err)
	}
	if len(reply.Allocations) != len(want) || reply.NextToken != "" {
		t.Fatalf("%d allocations, token %q", len(reply.Allocations), reply.NextToken)
	}
}
