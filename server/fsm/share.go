package fsm

import (
	"maps"

	"github.com/nomadish/nomadish/structs"
)

// shareDecoded makes the placements decoded from one plan entry share what
// they hold equal, as they did in the scheduler before encoding: the
// strings most of them repeat (namespace, job, group, eval, statuses,
// deployment) and the metric's nodes-available-per-datacenter map, one per
// evaluation. The decoder allocates each of them once per allocation, and
// the state store keeps them for the allocation's life (the C1M memory
// wall). Stored allocations are never changed in place, so sharing is safe.
func shareDecoded(allocs []*structs.Allocation) {
	if len(allocs) < 2 {
		return
	}
	strs := make(map[string]string, 16)
	share := func(s *string) {
		if *s == "" {
			return
		}
		if v, ok := strs[*s]; ok {
			*s = v
			return
		}
		strs[*s] = *s
	}
	var avail map[string]int
	for _, a := range allocs {
		for _, s := range []*string{&a.Namespace, &a.JobID, &a.TaskGroup, &a.EvalID,
			&a.DesiredStatus, &a.ClientStatus, &a.DeploymentID} {
			share(s)
		}
		m := a.Metrics
		if m == nil || m.NodesAvailable == nil {
			continue
		}
		if avail != nil && maps.Equal(m.NodesAvailable, avail) {
			m.NodesAvailable = avail
		} else {
			avail = m.NodesAvailable
		}
	}
}
