package structs

import (
	"maps"
	"slices"
	"testing"
)

func TestRejectTied(t *testing.T) {
	alloc := func(id, node, prev string) *Allocation {
		return &Allocation{ID: id, NodeID: node, PreviousAllocation: prev}
	}
	// n1 stops old1, replaced on n2; n2 stops old2, replaced on n3; n4 and
	// n5 are independent (n5 replaces an alloc the plan does not stop).
	p := NewPlan(&Evaluation{ID: "e"}, nil)
	p.AppendStoppedAlloc(alloc("old1", "n1", ""), "update", "")
	p.AppendStoppedAlloc(alloc("old2", "n2", ""), "update", "")
	p.AppendAlloc(alloc("new1", "n2", "old1"))
	p.AppendAlloc(alloc("new2", "n3", "old2"))
	p.AppendAlloc(alloc("x", "n4", ""))
	p.AppendAlloc(alloc("y", "n5", "failed-long-ago"))
	for _, tc := range []struct {
		rejected []string
		want     []string
	}{
		{nil, nil},
		{[]string{"n4"}, []string{"n4"}},
		{[]string{"n3"}, []string{"n1", "n2", "n3"}},
		{[]string{"n1"}, []string{"n1", "n2", "n3"}},
		{[]string{"n5"}, []string{"n5"}},
	} {
		got := map[string]string{}
		for _, n := range tc.rejected {
			got[n] = "does not fit"
		}
		RejectTied(p, got)
		if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, tc.want) {
			t.Errorf("rejected %v: got %v, want %v", tc.rejected, keys, tc.want)
		}
	}
}
