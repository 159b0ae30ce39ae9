package endpoints

import (
	"fmt"
	"sort"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// searchItems lists ctx's objects in namespace ns ("*": all) in ID order,
// for both searches to match against; the caller filters by visibility.
func searchItems(st *state.StateSnapshot, ctx, ns string) ([]searchItem, error) {
	switch ctx {
	case structs.SearchJobs, structs.SearchGroups, structs.SearchTasks, structs.SearchImages, structs.SearchCommands:
		jobs, err := st.Jobs(nil, ns)
		if err != nil {
			return nil, err
		}
		var out []searchItem
		for _, j := range jobs {
			out = append(out, jobItems(ctx, j)...)
		}
		return out, nil
	case structs.SearchAllocs:
		allocs, err := st.Allocs(nil)
		return mapItems(allocs, err, func(a *structs.Allocation) searchItem {
			return searchItem{id: a.ID, name: a.ID, ns: a.Namespace, scope: []string{a.Namespace, a.JobID}}
		})
	case structs.SearchEvals:
		evals, err := st.Evals(nil)
		return mapItems(evals, err, func(e *structs.Evaluation) searchItem {
			return searchItem{id: e.ID, name: e.ID, ns: e.Namespace, scope: []string{e.Namespace, e.JobID}}
		})
	case structs.SearchDeployments:
		ds, err := st.Deployments(nil, "*")
		items, err := mapItems(ds, err, func(d *structs.Deployment) searchItem {
			return searchItem{id: d.ID, name: d.ID, ns: d.Namespace, scope: []string{d.Namespace, d.JobID}}
		})
		sort.Slice(items, func(i, j int) bool { return items[i].id < items[j].id })
		return items, err
	case structs.SearchNodes:
		nodes, err := st.Nodes(nil)
		return mapItems(nodes, err, func(n *structs.Node) searchItem {
			return searchItem{id: n.ID, name: n.Name, scope: []string{n.ID}}
		})
	case structs.SearchNodePools:
		pools, err := st.NodePools()
		return mapItems(pools, err, func(p *structs.NodePool) searchItem { return searchItem{id: p.Name, name: p.Name} })
	case structs.SearchNamespaces:
		nss, err := st.Namespaces()
		return mapItems(nss, err, func(n *structs.Namespace) searchItem { return searchItem{id: n.Name, name: n.Name} })
	case structs.SearchVariables:
		vars, err := st.VarsByPrefix(ns, "")
		return mapItems(vars, err, func(v *structs.VariableEncrypted) searchItem {
			return searchItem{id: v.Path, name: v.Path, ns: v.Namespace, scope: []string{v.Namespace}}
		})
	case structs.SearchServices:
		return serviceItems(st, ns)
	}
	return nil, fmt.Errorf("search: no lister for context %q", ctx)
}

func mapItems[T any](in []T, err error, f func(T) searchItem) ([]searchItem, error) {
	if err != nil {
		return nil, err
	}
	out := make([]searchItem, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out, nil
}

// serviceItems lists each namespace's service names once, by name.
func serviceItems(st *state.StateSnapshot, ns string) ([]searchItem, error) {
	regs, err := st.ServiceRegistrations(nil, ns)
	if err != nil {
		return nil, err
	}
	seen := map[[2]string]bool{}
	var out []searchItem
	for _, r := range regs {
		k := [2]string{r.Namespace, r.ServiceName}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, searchItem{id: r.ServiceName, name: r.ServiceName, ns: r.Namespace, scope: []string{r.Namespace, r.JobID}})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out, nil
}

// jobItems are job j's items in ctx: the job itself, or its groups, tasks,
// services, images or commands (scoped namespace, job, group, task as
// Nomad's fuzzy search scopes them).
func jobItems(ctx string, j *structs.Job) []searchItem {
	if ctx == structs.SearchJobs {
		return []searchItem{{id: j.ID, name: j.Name, ns: j.Namespace, scope: []string{j.Namespace, j.ID}}}
	}
	var out []searchItem
	add := func(name string, scope ...string) {
		if name != "" {
			out = append(out, searchItem{id: name, name: name, ns: j.Namespace, scope: append([]string{j.Namespace, j.ID}, scope...)})
		}
	}
	for _, g := range j.TaskGroups {
		if ctx == structs.SearchGroups {
			add(g.Name)
		}
		if ctx == structs.SearchServices {
			for _, s := range g.Services {
				add(s.Name, g.Name)
			}
		}
		for _, t := range g.Tasks {
			switch ctx {
			case structs.SearchTasks:
				add(t.Name, g.Name)
			case structs.SearchServices:
				for _, s := range t.Services {
					add(s.Name, g.Name, t.Name)
				}
			case structs.SearchImages:
				if img, ok := t.Config["image"].(string); ok {
					add(img, g.Name, t.Name)
				}
			case structs.SearchCommands:
				if cmd, ok := t.Config["command"].(string); ok {
					add(cmd, g.Name, t.Name)
				}
			}
		}
	}
	return out
}
