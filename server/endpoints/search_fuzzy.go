package endpoints

import (
	"sort"
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// FuzzySearch answers the names containing args.Text, case-insensitively,
// in args.Context ("all": every context the token may read): jobs, nodes,
// node pools, namespaces, variable paths, and the groups, tasks, services,
// docker images and exec commands of jobs, each scoped by its parents.
// Allocations, evaluations and deployments match by ID prefix when the
// text could be one (hex digits and dashes), as Nomad's short-UUID rule.
// Exact matches come first, then prefix matches, then the rest, each in
// name order; at most SearchFuzzyLimit per context (Truncations says where
// more matched). A text shorter than SearchFuzzyMinTerm is a 400.
func (e *Search) FuzzySearch(args *structs.FuzzySearchRequest, reply *structs.FuzzySearchResponse) error {
	if n := len([]rune(args.Text)); n < structs.SearchFuzzyMinTerm {
		return structs.NewCodedError(structs.ErrCodeBadRequest,
			"fuzzy search query must be at least %d characters, got %d", structs.SearchFuzzyMinTerm, n)
	}
	a, accessor, err := e.d.resolveACL(args.AuthToken)
	if err != nil {
		return err
	}
	view := searchView{acl: a, ns: searchNamespace(args.Namespace)}
	ctxs, err := e.d.searchContexts(args.Context, fuzzyContexts, view, accessor)
	if err != nil {
		return err
	}
	text := strings.ToLower(args.Text)
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, searchTablesOf(ctxs), func(_ memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		reply.Matches = make(map[string][]structs.FuzzyMatch, len(ctxs))
		reply.Truncations = make(map[string]bool, len(ctxs))
		for _, c := range ctxs {
			items, err := fuzzyItems(st, c, view.ns)
			if err != nil {
				return 0, err
			}
			matches, truncated := fuzzyMatch(c, items, text, view)
			reply.Matches[c], reply.Truncations[c] = matches, truncated
		}
		return searchIndex(st, ctxs)
	})
}

// fuzzyItems is searchItems, with services taken from job specifications
// (Nomad's fuzzy services context) rather than registrations.
func fuzzyItems(st *state.StateSnapshot, ctx, ns string) ([]searchItem, error) {
	if ctx != structs.SearchServices {
		return searchItems(st, ctx, ns)
	}
	jobs, err := st.Jobs(nil, ns)
	if err != nil {
		return nil, err
	}
	var out []searchItem
	for _, j := range jobs {
		out = append(out, jobItems(ctx, j)...)
	}
	return out, nil
}

// fuzzyMatch ranks the visible items matching text (lower case) and keeps
// SearchFuzzyLimit; it reports whether more matched.
func fuzzyMatch(ctx string, items []searchItem, text string, view searchView) ([]structs.FuzzyMatch, bool) {
	byID := ctx == structs.SearchAllocs || ctx == structs.SearchEvals || ctx == structs.SearchDeployments
	if byID && !isUUIDPrefix(text) {
		return []structs.FuzzyMatch{}, false
	}
	type ranked struct {
		rank int
		it   searchItem
	}
	var found []ranked
	for _, it := range items {
		name := strings.ToLower(it.name)
		rank := 2
		switch {
		case name == text:
			rank = 0
		case strings.HasPrefix(name, text):
			rank = 1
		case byID || !strings.Contains(name, text):
			continue
		}
		if view.visible(ctx, it) {
			found = append(found, ranked{rank, it})
		}
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].rank != found[j].rank {
			return found[i].rank < found[j].rank
		}
		return found[i].it.name < found[j].it.name
	})
	truncated := len(found) > structs.SearchFuzzyLimit
	if truncated {
		found = found[:structs.SearchFuzzyLimit]
	}
	out := make([]structs.FuzzyMatch, len(found))
	for i, f := range found {
		out[i] = structs.FuzzyMatch{ID: f.it.name, Scope: f.it.scope}
	}
	return out, truncated
}

// isUUIDPrefix says whether s could begin a UUID.
func isUUIDPrefix(s string) bool {
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r == '-') {
			return false
		}
	}
	return len(s) <= 36
}
