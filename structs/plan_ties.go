package structs

import "sort"

// RejectTied extends rejected (node ID -> reason) with every node whose part
// of the plan is tied to a rejected node's part: a placement that replaces
// (PreviousAllocation) an allocation the plan stops on the other node. The
// plan applier commits plans node by node; committing one half of such a
// pair would run two allocations under one name (the replacement placed,
// the stop rejected) or stop an allocation whose replacement did not land.
// Ties are followed transitively. The plan applier and schedulertest's
// store both call it.
func RejectTied(p *Plan, rejected map[string]string) {
	if len(rejected) == 0 || len(p.NodeUpdate) == 0 {
		return
	}
	stoppedOn := map[string]string{} // alloc ID -> node whose part stops it
	for node, as := range p.NodeUpdate {
		for _, a := range as {
			stoppedOn[a.ID] = node
		}
	}
	links := map[string][]string{}
	for node, as := range p.NodeAllocation {
		for _, a := range as {
			other, ok := stoppedOn[a.PreviousAllocation]
			if a.PreviousAllocation == "" || !ok || other == node {
				continue
			}
			links[node] = append(links[node], other)
			links[other] = append(links[other], node)
		}
	}
	queue := make([]string, 0, len(rejected))
	for n := range rejected {
		queue = append(queue, n)
	}
	sort.Strings(queue)
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, m := range links[n] {
			if _, done := rejected[m]; !done {
				rejected[m] = "tied to rejected node " + n + ": a replacement and the allocation it replaces commit together"
				queue = append(queue, m)
			}
		}
	}
}
