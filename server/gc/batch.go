package gc

import "github.com/nomadish/nomadish/structs"

// Batches splits r into raft entries naming objects of total weight at
// most size each (a job counts with the evaluations and allocations it is
// purged with; one heavier than size gets an entry of its own).
func (r Result) Batches(size int) []*structs.GCReapRequest {
	if size <= 0 {
		size = DefaultBatchSize
	}
	var out []*structs.GCReapRequest
	cur, weight := &structs.GCReapRequest{}, 0
	for _, v := range r.Victims {
		w := max(v.Weight, 1)
		if weight > 0 && weight+w > size {
			out = append(out, cur)
			cur, weight = &structs.GCReapRequest{}, 0
		}
		weight += w
		switch v.Kind {
		case KindJob:
			cur.Jobs = append(cur.Jobs, structs.NamespacedID{Namespace: v.Namespace, ID: v.ID})
		case KindEval:
			cur.Evals = append(cur.Evals, v.ID)
		case KindAlloc:
			cur.Allocs = append(cur.Allocs, v.ID)
		case KindDeployment:
			cur.Deployments = append(cur.Deployments, v.ID)
		case KindNode:
			cur.Nodes = append(cur.Nodes, v.ID)
		}
	}
	if !cur.Empty() {
		out = append(out, cur)
	}
	return out
}
