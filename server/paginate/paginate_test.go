package paginate

import (
	"errors"
	"fmt"
	"testing"
)

type row struct {
	ID          string
	Namespace   string
	CreateIndex uint64
	Status      string
	Meta        map[string]string
}

func rowKey(r *row) Key { return Key{Index: r.CreateIndex, Namespace: r.Namespace, ID: r.ID} }

// rows makes n rows whose create indexes run 1..n (so "10" sorts after
// "9" only numerically) in shuffled ID order.
func rows(n int) []*row {
	out := make([]*row, n)
	for i := range out {
		status := "running"
		if i%3 == 0 {
			status = "complete"
		}
		out[i] = &row{ID: fmt.Sprintf("id-%03d", (i*7)%n), Namespace: "default", CreateIndex: uint64(i + 1), Status: status}
	}
	return out
}

func ids(rs []*row) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func TestInactiveReturnsRowsUnchanged(t *testing.T) {
	in := rows(5)
	out, next, err := Page(in, ByCreateIndex, rowKey, Options{})
	if err != nil || next != "" || &out[0] != &in[0] || len(out) != 5 {
		t.Fatalf("got %v %q %v", ids(out), next, err)
	}
}

func TestPagesCoverEveryRowOnceInOrder(t *testing.T) {
	for _, reverse := range []bool{false, true} {
		in := rows(25)
		var seen []uint64
		token, pages := "", 0
		for {
			page, next, err := Page(in, ByCreateIndex, rowKey, Options{PerPage: 10, NextToken: token, Reverse: reverse})
			if err != nil {
				t.Fatal(err)
			}
			pages++
			for _, r := range page {
				seen = append(seen, r.CreateIndex)
			}
			if next == "" {
				break
			}
			token = next
		}
		if pages != 3 || len(seen) != 25 {
			t.Fatalf("reverse=%v: %d pages, %d rows", reverse, pages, len(seen))
		}
		for i, idx := range seen {
			want := uint64(i + 1)
			if reverse {
				want = uint64(25 - i)
			}
			if idx != want {
				t.Fatalf("reverse=%v: row %d has index %d, want %d", reverse, i, idx, want)
			}
		}
	}
}

func TestNextTokenNamesFirstRowOfNextPage(t *testing.T) {
	in := rows(12)
	_, next, err := Page(in, ByCreateIndex, rowKey, Options{PerPage: 9})
	if err != nil {
		t.Fatal(err)
	}
	want := ByCreateIndex.Token(rowKey(in[9]))
	if next != want {
		t.Fatalf("next = %q, want %q", next, want)
	}
}

func TestFilterBeforePaging(t *testing.T) {
	in := rows(30) // 10 complete
	page, next, err := Page(in, ByCreateIndex, rowKey, Options{Filter: `Status == "complete"`, PerPage: 6})
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 6 || next == "" {
		t.Fatalf("page %d rows, next %q", len(page), next)
	}
	rest, next2, err := Page(in, ByCreateIndex, rowKey, Options{Filter: `Status == "complete"`, PerPage: 6, NextToken: next})
	if err != nil {
		t.Fatal(err)
	}
	if len(rest) != 4 || next2 != "" {
		t.Fatalf("second page %d rows, next %q", len(rest), next2)
	}
	for _, r := range append(page, rest...) {
		if r.Status != "complete" {
			t.Fatalf("row %s is %s", r.ID, r.Status)
		}
	}
}

func TestFilterExpressions(t *testing.T) {
	in := []*row{
		{ID: "web-1", Status: "running", Meta: map[string]string{"team": "a"}},
		{ID: "web-2", Status: "complete"},
		{ID: "db-1", Status: "running"},
	}
	for expr, want := range map[string]int{
		`Status == "running" and ID matches "web.*"`: 1,
		`ID contains "1"`:     2,
		`Status != "running"`: 1,
		`Meta.team == "a"`:    1,
	} {
		page, _, err := Page(in, ByID, rowKey, Options{Filter: expr})
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if len(page) != want {
			t.Errorf("%s: %v, want %d rows", expr, ids(page), want)
		}
	}
}

func TestBadInput(t *testing.T) {
	in := rows(3)
	for _, tc := range []struct {
		order Order
		opts  Options
		want  error
	}{
		{ByCreateIndex, Options{Filter: `Status ==`}, ErrBadFilter},
		{ByCreateIndex, Options{Filter: `Nope == "x"`}, ErrBadFilter},
		{ByCreateIndex, Options{NextToken: "abc"}, ErrBadToken},
		{ByCreateIndex, Options{NextToken: "x.abc"}, ErrBadToken},
		{ByNamespaceID, Options{NextToken: "noDot"}, ErrBadToken},
	} {
		if _, _, err := Page(in, tc.order, rowKey, tc.opts); !errors.Is(err, tc.want) {
			t.Errorf("%+v: err %v, want %v", tc.opts, err, tc.want)
		}
	}
}

func TestUnknownFieldRefusedOnEmptyList(t *testing.T) {
	if _, _, err := Page([]*row{}, ByID, rowKey, Options{Filter: `Nope == "x"`}); !errors.Is(err, ErrBadFilter) {
		t.Fatalf("err %v, want ErrBadFilter", err)
	}
	if _, _, err := Page([]*row{}, ByID, rowKey, Options{Filter: `Meta.team == "x" and Status == ""`}); err != nil {
		t.Fatalf("known fields: %v", err)
	}
}

func TestTokenPastEndIsEmptyPage(t *testing.T) {
	page, next, err := Page(rows(3), ByCreateIndex, rowKey, Options{NextToken: "99.x"})
	if err != nil || len(page) != 0 || next != "" || page == nil {
		t.Fatalf("got %v %q %v", page, next, err)
	}
}

func TestNamespaceIDOrder(t *testing.T) {
	in := []*row{{ID: "b", Namespace: "prod"}, {ID: "a", Namespace: "prod"}, {ID: "z", Namespace: "default"}}
	page, next, err := Page(in, ByNamespaceID, rowKey, Options{PerPage: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(ids(page)); got != "[z a]" || next != "prod.b" {
		t.Fatalf("got %s next %q", got, next)
	}
}
