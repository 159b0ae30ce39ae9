package endpoints

import (
	"slices"

	aclpkg "github.com/nomadish/nomadish/acl"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// Search serves Search.PrefixSearch (search_prefix.go) and
// Search.FuzzySearch (search_fuzzy.go).
type Search struct{ d *Deps }

// searchItem is one searchable object of a context: its ID, the name a
// fuzzy search matches (and answers), its namespace ("" for nodes and node
// pools) and, for a fuzzy match, its Scope.
type searchItem struct {
	id, name, ns string
	scope        []string
}

// searchView is what a search may see: the request's namespace ("*": all)
// and the caller's ACL (nil: everything).
type searchView struct {
	acl *aclpkg.ACL
	ns  string
}

// searchTables are the tables each context reads (the answer's index is
// their highest).
var searchTables = map[string]string{
	structs.SearchJobs: state.TableJobs, structs.SearchAllocs: state.TableAllocs,
	structs.SearchEvals: state.TableEvals, structs.SearchDeployments: state.TableDeployments,
	structs.SearchNodes: state.TableNodes, structs.SearchNodePools: state.TableNodePools,
	structs.SearchNamespaces: state.TableNamespaces, structs.SearchVariables: state.TableVariables,
	structs.SearchServices: state.TableServiceRegistrations,
	structs.SearchGroups:   state.TableJobs, structs.SearchTasks: state.TableJobs,
	structs.SearchImages: state.TableJobs, structs.SearchCommands: state.TableJobs,
}

// prefixContexts are what "all" means to a prefix search, in answer order.
var prefixContexts = []string{
	structs.SearchAllocs, structs.SearchDeployments, structs.SearchEvals, structs.SearchJobs,
	structs.SearchNodes, structs.SearchNodePools, structs.SearchNamespaces, structs.SearchVariables,
	structs.SearchServices,
}

// fuzzyContexts are what "all" means to a fuzzy search.
var fuzzyContexts = append(slices.Clone(prefixContexts),
	structs.SearchGroups, structs.SearchTasks, structs.SearchImages, structs.SearchCommands)

// searchContexts resolves a request's context among known ("all": every
// one the view may read at all). An unknown context is a 400; a named one
// the token may not read at all is a 403.
func (d *Deps) searchContexts(ctx string, known []string, v searchView, accessor string) ([]string, error) {
	if ctx == structs.SearchAll {
		var out []string
		for _, c := range known {
			if v.mayRead(c) {
				out = append(out, c)
			}
		}
		if len(out) == 0 {
			return nil, d.denied(accessor, v.ns, "search")
		}
		return out, nil
	}
	if !slices.Contains(known, ctx) {
		return nil, structs.NewCodedError(structs.ErrCodeBadRequest, "invalid search context %q", ctx)
	}
	if !v.mayRead(ctx) {
		return nil, d.denied(accessor, v.ns, "search "+ctx)
	}
	return []string{ctx}, nil
}

// mayRead says whether the view could see anything of ctx (objects are
// filtered one by one afterwards: visible).
func (v searchView) mayRead(ctx string) bool {
	switch {
	case v.acl.IsManagement():
		return true
	case ctx == structs.SearchNodes:
		return v.acl.AllowNodeRead()
	case ctx == structs.SearchNodePools, ctx == structs.SearchNamespaces, ctx == structs.SearchVariables:
		return true // per object
	case v.ns == "*":
		return true // per namespace
	default:
		return v.acl.AllowNamespaceOperation(v.ns, nsCapFor(ctx))
	}
}

// nsCapFor is the namespace capability reading ctx's objects needs
// (Nomad's: list-jobs for jobs, read-job for the rest).
func nsCapFor(ctx string) string {
	if ctx == structs.SearchJobs {
		return aclpkg.NamespaceCapabilityListJobs
	}
	return aclpkg.NamespaceCapabilityReadJob
}

// visible says whether the view sees item of ctx.
func (v searchView) visible(ctx string, it searchItem) bool {
	switch ctx {
	case structs.SearchNodes:
		return v.acl.AllowNodeRead()
	case structs.SearchNodePools:
		return v.acl.AllowNodePool(it.id)
	case structs.SearchNamespaces:
		return v.acl.AllowNamespace(it.id) // every namespace, whatever the request's
	case structs.SearchVariables:
		return inNamespace(v.ns, it.ns) && v.acl.AllowVariableOperation(it.ns, it.id, aclpkg.VariablesCapabilityList)
	default:
		return inNamespace(v.ns, it.ns) && v.acl.AllowNamespaceOperation(it.ns, nsCapFor(ctx))
	}
}

// searchIndex is the highest index of the contexts' tables.
func searchIndex(st *state.StateSnapshot, ctxs []string) (uint64, error) {
	tables := make([]string, 0, len(ctxs))
	for _, c := range ctxs {
		tables = append(tables, searchTables[c])
	}
	return tableIndex(st, tables...)
}

// searchTablesOf lists the tables ctxs read, once each.
func searchTablesOf(ctxs []string) []string {
	var out []string
	for _, c := range ctxs {
		if t := searchTables[c]; !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}
