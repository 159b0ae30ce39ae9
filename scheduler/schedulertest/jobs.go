package schedulertest

import (
	"sort"

	"github.com/nomadish/nomadish/structs"
)

// Jobs returns every job, sorted by namespace and ID (the server's order),
// e.g. to create the node-update evals of system jobs when a node joins.
func (s *Store) Jobs() []*structs.Job {
	out := make([]*structs.Job, 0, len(s.jobs))
	for _, j := range s.jobs {
		out = append(out, j)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].ID < out[j].ID
	})
	return out
}
