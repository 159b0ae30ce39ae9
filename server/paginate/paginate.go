package paginate

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/go-bexpr"
)

// Errors Page returns; both are the caller's mistake (HTTP 400).
var (
	ErrBadFilter = errors.New("paginate: invalid filter")
	ErrBadToken  = errors.New("paginate: invalid next_token")
)

// Options are the paging and filtering query parameters of a list
// (Nomad's filter, per_page, next_token and reverse).
type Options struct {
	// Filter is a go-bexpr expression over a row's fields; "" keeps all.
	Filter string
	// PerPage bounds the rows of a page; 0 or less: all rows.
	PerPage int32
	// NextToken is the token of the first row to answer (from the previous
	// page's answer); "": from the start.
	NextToken string
	// Reverse answers the rows in reverse order.
	Reverse bool
}

// Active says whether the options ask for anything: a list asked for
// nothing answers as it always did, without Page's sort and copy.
func (o Options) Active() bool {
	return o.Filter != "" || o.PerPage > 0 || o.NextToken != "" || o.Reverse
}

// Order is how a list's rows are sorted and how their tokens read.
type Order int

const (
	// ByID orders by ID; the token is the ID (nodes).
	ByID Order = iota
	// ByNamespaceID orders by namespace then ID; the token is
	// "<namespace>.<id>" (jobs).
	ByNamespaceID
	// ByCreateIndex orders by create index then ID; the token is
	// "<create index>.<id>" (allocations, evaluations, deployments), as
	// Nomad's paginator; the index compares as a number.
	ByCreateIndex
)

// Key is where a row sorts: by Index (ByCreateIndex only), then Namespace
// (ByNamespaceID only), then ID.
type Key struct {
	Index     uint64
	Namespace string
	ID        string
}

func (k Key) compare(o Key) int {
	if c := cmp.Compare(k.Index, o.Index); c != 0 {
		return c
	}
	if c := strings.Compare(k.Namespace, o.Namespace); c != 0 {
		return c
	}
	return strings.Compare(k.ID, o.ID)
}

// Token is the next_token naming the row at k under order.
func (o Order) Token(k Key) string {
	switch o {
	case ByNamespaceID:
		return k.Namespace + "." + k.ID
	case ByCreateIndex:
		return strconv.FormatUint(k.Index, 10) + "." + k.ID
	default:
		return k.ID
	}
}

// norm keeps only the fields of k that order sorts by.
func (o Order) norm(k Key) Key {
	switch o {
	case ByNamespaceID:
		return Key{Namespace: k.Namespace, ID: k.ID}
	case ByCreateIndex:
		return Key{Index: k.Index, ID: k.ID}
	default:
		return Key{ID: k.ID}
	}
}

// parse reads a token written by Token.
func (o Order) parse(token string) (Key, error) {
	switch o {
	case ByNamespaceID:
		ns, id, ok := strings.Cut(token, ".")
		if !ok || ns == "" {
			return Key{}, fmt.Errorf("%w %q: want <namespace>.<id>", ErrBadToken, token)
		}
		return Key{Namespace: ns, ID: id}, nil
	case ByCreateIndex:
		idx, id, ok := strings.Cut(token, ".")
		n, err := strconv.ParseUint(idx, 10, 64)
		if !ok || err != nil {
			return Key{}, fmt.Errorf("%w %q: want <create index>.<id>", ErrBadToken, token)
		}
		return Key{Index: n, ID: id}, nil
	default:
		return Key{ID: token}, nil
	}
}

// Filter is a compiled filter expression; a nil *Filter keeps every row.
type Filter struct{ eval *bexpr.Evaluator }

// NewFilter compiles expr ("" gives nil: keep all). A bad expression is
// ErrBadFilter wrapped with go-bexpr's message, which names the place.
func NewFilter(expr string) (*Filter, error) {
	if expr == "" {
		return nil, nil
	}
	ev, err := bexpr.CreateEvaluator(expr)
	if err != nil {
		return nil, fmt.Errorf("%w: failed to read filter expression: %v", ErrBadFilter, err)
	}
	return &Filter{eval: ev}, nil
}

// Match says whether row passes the filter. A selector naming no field of
// the row is ErrBadFilter.
func (f *Filter) Match(row any) (bool, error) {
	if f == nil {
		return true, nil
	}
	ok, err := f.eval.Evaluate(row)
	if err != nil {
		return false, fmt.Errorf("%w: failed to apply filter expression: %v", ErrBadFilter, err)
	}
	return ok, nil
}

// Page returns the page of rows opts asks for, and the token of the next
// page ("" when this page is the last). rows is not modified (it may be a
// shared, read-only answer); the page is a new slice of the same rows.
// With !opts.Active() it returns rows itself. key gives each row's Key
// under order. Errors wrap ErrBadFilter or ErrBadToken.
func Page[T any](rows []T, order Order, key func(T) Key, opts Options) ([]T, string, error) {
	if !opts.Active() {
		return rows, "", nil
	}
	filter, err := NewFilter(opts.Filter)
	if err != nil {
		return nil, "", err
	}
	if err := probe[T](filter); err != nil {
		return nil, "", err
	}
	var seek *Key
	if opts.NextToken != "" {
		k, err := order.parse(opts.NextToken)
		if err != nil {
			return nil, "", err
		}
		seek = &k
	}
	type keyed struct {
		k   Key
		row T
	}
	sorted := make([]keyed, len(rows))
	for i, r := range rows {
		sorted[i] = keyed{order.norm(key(r)), r}
	}
	dir := 1
	if opts.Reverse {
		dir = -1
	}
	// Keys are unique (they end in the ID), so an unstable sort is exact.
	slices.SortFunc(sorted, func(a, b keyed) int { return dir * a.k.compare(b.k) })
	start := 0
	if seek != nil {
		start, _ = slices.BinarySearchFunc(sorted, *seek, func(e keyed, t Key) int { return dir * e.k.compare(t) })
	}
	var page []T
	for _, e := range sorted[start:] {
		ok, err := filter.Match(e.row)
		if err != nil {
			return nil, "", err
		}
		if !ok {
			continue
		}
		if opts.PerPage > 0 && len(page) == int(opts.PerPage) {
			return page, order.Token(e.k), nil
		}
		page = append(page, e.row)
	}
	if page == nil {
		page = []T{}
	}
	return page, "", nil
}

// probe applies filter to a zero row, so that a selector naming no field
// of the rows is refused even when no row is there to be filtered.
func probe[T any](filter *Filter) error {
	if filter == nil {
		return nil
	}
	var zero T
	row := any(zero)
	if rt := reflect.TypeFor[T](); rt.Kind() == reflect.Pointer {
		row = reflect.New(rt.Elem()).Interface()
	}
	_, err := filter.Match(row)
	return err
}
