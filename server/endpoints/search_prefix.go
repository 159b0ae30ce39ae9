package endpoints

import (
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// PrefixSearch answers the IDs starting with args.Prefix in args.Context
// (Nomad's: "all" searches every context the token may read), at most
// SearchPrefixLimit per context, in ID order; Truncations says where more
// matched. Objects the token may not read are left out. Every searched
// context is in Matches, empty or not.
func (e *Search) PrefixSearch(args *structs.SearchRequest, reply *structs.SearchResponse) error {
	a, accessor, err := e.d.resolveACL(args.AuthToken)
	if err != nil {
		return err
	}
	view := searchView{acl: a, ns: searchNamespace(args.Namespace)}
	ctxs, err := e.d.searchContexts(args.Context, prefixContexts, view, accessor)
	if err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, searchTablesOf(ctxs), func(_ memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		reply.Matches = make(map[string][]string, len(ctxs))
		reply.Truncations = make(map[string]bool, len(ctxs))
		for _, c := range ctxs {
			items, err := searchItems(st, c, view.ns)
			if err != nil {
				return 0, err
			}
			ids := []string{}
			for _, it := range items {
				if !strings.HasPrefix(it.id, args.Prefix) || !view.visible(c, it) {
					continue
				}
				if len(ids) == structs.SearchPrefixLimit {
					reply.Truncations[c] = true
					break
				}
				ids = append(ids, it.id)
			}
			reply.Matches[c] = ids
			if !reply.Truncations[c] {
				reply.Truncations[c] = false
			}
		}
		return searchIndex(st, ctxs)
	})
}

// searchNamespace is a search's namespace: "" is the default one.
func searchNamespace(ns string) string { return namespaceOf(ns) }
