package scheduler

import (
	"fmt"
	"sort"

	"github.com/nomadish/nomadish/structs"
)

// maxScoreMeta is how many of the best-scoring nodes a metric keeps.
const maxScoreMeta = 5

// evalContext is what the placement iterators share during one scheduling
// attempt: the state snapshot, the plan built so far and the metric of the
// current Select. It is owned by the goroutine running Process.
type evalContext struct {
	state   State
	plan    *structs.Plan
	metrics *structs.AllocMetric
	err     error // first state error met by an iterator; Select reports it

	nodeAllocs map[string][]*structs.Allocation // state allocs per node, read once
	scores     []*structs.NodeScoreMeta         // every node ranked in this Select
}

func newEvalContext(state State, plan *structs.Plan) *evalContext {
	return &evalContext{state: state, plan: plan, nodeAllocs: map[string][]*structs.Allocation{}}
}

// proposedAllocs returns the live allocations the node would hold if the
// plan were committed: the state's, minus what the plan stops or evicts, plus
// what it places. The returned slice is new and owned by the caller.
func (c *evalContext) proposedAllocs(nodeID string) ([]*structs.Allocation, error) {
	existing, ok := c.nodeAllocs[nodeID]
	if !ok {
		var err error
		existing, err = c.state.AllocsByNode(nodeID)
		if err != nil {
			return nil, fmt.Errorf("looking up allocs on node %q: %w", nodeID, err)
		}
		c.nodeAllocs[nodeID] = existing
	}
	var removed map[string]bool // nil (no allocation) unless the plan stops something here
	for _, as := range [][]*structs.Allocation{c.plan.NodeUpdate[nodeID], c.plan.NodePreemptions[nodeID]} {
		for _, a := range as {
			if removed == nil {
				removed = map[string]bool{}
			}
			removed[a.ID] = true
		}
	}
	placed := c.plan.NodeAllocation[nodeID]
	out := make([]*structs.Allocation, 0, len(existing)+len(placed)+1)
	for _, a := range existing {
		if !a.TerminalStatus() && !removed[a.ID] {
			out = append(out, a)
		}
	}
	for _, a := range placed {
		if !a.TerminalStatus() { // skip in-place updates of failed allocs
			out = append(out, a)
		}
	}
	return out, nil
}

// newMetric starts the metric of one Select over inPool candidate nodes.
func (c *evalContext) newMetric(inPool int, available map[string]int) {
	c.metrics = &structs.AllocMetric{NodesInPool: inPool, NodesAvailable: make(map[string]int, len(available))}
	for dc, n := range available {
		c.metrics.NodesAvailable[dc] = n
	}
	c.scores = c.scores[:0]
}

func (c *evalContext) evaluatedNode() { c.metrics.NodesEvaluated++ }

// filteredNode records that a feasibility checker ruled the node out.
func (c *evalContext) filteredNode(reason string) {
	m := c.metrics
	m.NodesFiltered++
	if m.ConstraintFiltered == nil {
		m.ConstraintFiltered = map[string]int{}
	}
	m.ConstraintFiltered[reason]++
}

// exhaustedNode records that the node lacked room in dimension dim.
func (c *evalContext) exhaustedNode(dim string) {
	m := c.metrics
	m.NodesExhausted++
	if m.DimensionExhausted == nil {
		m.DimensionExhausted = map[string]int{}
	}
	m.DimensionExhausted[dim]++
}

// scoredNode records a ranked node's scores.
func (c *evalContext) scoredNode(n *rankedNode) {
	c.scores = append(c.scores, &structs.NodeScoreMeta{NodeID: n.node.ID, Scores: n.scores, NormScore: n.score})
}

// finishMetric keeps the best-scoring nodes in the metric, best first.
func (c *evalContext) finishMetric() {
	sort.SliceStable(c.scores, func(i, j int) bool { return c.scores[i].NormScore > c.scores[j].NormScore })
	n := min(len(c.scores), maxScoreMeta)
	if n > 0 {
		c.metrics.ScoreMetaData = append([]*structs.NodeScoreMeta(nil), c.scores[:n]...)
	}
}
