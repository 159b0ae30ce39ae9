package scheduler

import (
	"fmt"
	"math/rand/v2"

	"github.com/nomadish/nomadish/structs"
)

// maxScoreMeta is how many of the best-scoring nodes a metric keeps.
const maxScoreMeta = 5

// evalContext is what the placement iterators share during one scheduling
// attempt: the state snapshot, the plan built so far and the metric of the
// current Select. It is owned by the goroutine running Process.
type evalContext struct {
	state   State
	sums    NodeUsageState // state's per-node sums, when it keeps them (nil: add the allocs up)
	plan    *structs.Plan
	metrics *structs.AllocMetric
	err     error // first state error met by an iterator; Select reports it

	nodeAllocs map[string][]*structs.Allocation // live state allocs per node, read once
	usages     map[string]*nodeUsage            // per node, kept up to date with the plan (node_usage.go)
	usageSlab  []nodeUsage                      // where newUsage allocates from
	pristine   nodeUsage                        // usage returns it for a node holding nothing
	ranked     []rankedNode                     // slab newRanked hands out from; reset by newMetric
	top        []rankedNode                     // the best-scoring nodes of this Select, best first
	jobAllocs  []*structs.Allocation            // the job's allocs in state, read once (groupAllocs)
	nodesByID  map[string]*structs.Node         // nodes read by ID, once (node)
	slots      slotTable                        // per node of the stack's list, by position (node_slots.go)
	slotsStale bool                             // the slots' usages are not to be trusted (untrustSlots)
	// planWasEmpty: the plan touched no node when the context was made, so
	// a node's first look need not read the plan unless Select marked it.
	planWasEmpty bool

	// ports.go: the dynamic port picks (seeded from the eval), the map
	// usedPorts reuses and the slab portAssignments' values live in.
	ports       *rand.Rand
	portScratch map[int]bool
	portSlab    []int

	coreScratch map[uint16]bool // heldCores' map (cores.go)
}

func newEvalContext(state State, plan *structs.Plan) *evalContext {
	sums, _ := state.(NodeUsageState)
	return &evalContext{state: state, sums: sums, plan: plan, nodeAllocs: map[string][]*structs.Allocation{},
		planWasEmpty: len(plan.NodeAllocation)+len(plan.NodeUpdate)+len(plan.NodePreemptions) == 0}
}

// proposedAllocs returns the live allocations the node would hold if the
// plan were committed: the state's, minus what the plan stops or evicts, plus
// what it places. The returned slice is new and owned by the caller.
func (c *evalContext) proposedAllocs(nodeID string) ([]*structs.Allocation, error) {
	existing, ok := c.nodeAllocs[nodeID]
	if !ok {
		var err error
		existing, err = c.state.LiveAllocsByNode(nodeID)
		if err != nil {
			return nil, fmt.Errorf("looking up allocs on node %q: %w", nodeID, err)
		}
		c.nodeAllocs[nodeID] = existing
	}
	var removed map[string]bool // nil (no allocation) unless the plan touches the node
	// An alloc the plan places that is already on the node is an in-place
	// update: its new version replaces the old one.
	for _, as := range [][]*structs.Allocation{c.plan.NodeUpdate[nodeID], c.plan.NodePreemptions[nodeID], c.plan.NodeAllocation[nodeID]} {
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
// The metrics of one eval share its available map (the ready nodes per
// datacenter do not change within it; nothing writes a metric's map after).
func (c *evalContext) newMetric(inPool int, available map[string]int) {
	c.metrics = &structs.AllocMetric{NodesInPool: inPool, NodesAvailable: available}
	c.top = c.top[:0]
	c.ranked = c.ranked[:0]
}

func (c *evalContext) evaluatedNode() { c.metrics.NodesEvaluated++ }

// filteredNode records that a feasibility checker ruled the node out, by
// reason and, for a node with a class, by class (as Nomad's FilterNode).
func (c *evalContext) filteredNode(n *structs.Node, reason string) {
	c.filteredClass(n)
	m := c.metrics
	if m.ConstraintFiltered == nil {
		m.ConstraintFiltered = map[string]int{}
	}
	m.ConstraintFiltered[reason]++
}

// filteredClass counts a filtered node in NodesFiltered and by class; the
// caller counts its reason.
func (c *evalContext) filteredClass(n *structs.Node) {
	m := c.metrics
	m.NodesFiltered++
	if n.NodeClass != "" {
		if m.ClassFiltered == nil {
			m.ClassFiltered = map[string]int{}
		}
		m.ClassFiltered[n.NodeClass]++
	}
}

// exhaustedNode records that the node lacked room in dimension dim, and
// for a node with a class, by class (as Nomad's ExhaustedNode).
func (c *evalContext) exhaustedNode(n *structs.Node, dim string) {
	m := c.metrics
	m.NodesExhausted++
	if n.NodeClass != "" {
		if m.ClassExhausted == nil {
			m.ClassExhausted = map[string]int{}
		}
		m.ClassExhausted[n.NodeClass]++
	}
	if m.DimensionExhausted == nil {
		m.DimensionExhausted = map[string]int{}
	}
	m.DimensionExhausted[dim]++
}

// newRanked returns a zeroed ranked node for n, valid until the next Select.
// It allocates only when the slab is full (a new, larger one; the ranked
// nodes handed out before stay valid).
func (c *evalContext) newRanked(n *structs.Node) *rankedNode {
	if len(c.ranked) == cap(c.ranked) {
		c.ranked = make([]rankedNode, 0, max(16, 2*cap(c.ranked)))
	}
	c.ranked = append(c.ranked, rankedNode{node: n, pos: -1})
	return &c.ranked[len(c.ranked)-1]
}

// scoredNode records a ranked node's final and per-scorer scores if it is
// among the maxScoreMeta best of this Select (first ranked first on ties).
func (c *evalContext) scoredNode(n *rankedNode) {
	i := len(c.top)
	for i > 0 && n.score > c.top[i-1].score {
		i--
	}
	if i >= maxScoreMeta {
		return
	}
	if len(c.top) < maxScoreMeta {
		c.top = append(c.top, rankedNode{})
	}
	copy(c.top[i+1:], c.top[i:len(c.top)-1])
	c.top[i] = *n
}

// finishMetric keeps the best-scoring nodes in the metric, best first, with
// each scorer's score by name (Nomad's ScoreMetaData).
func (c *evalContext) finishMetric() {
	if len(c.top) == 0 {
		return
	}
	meta := make([]structs.NodeScoreMeta, len(c.top))
	c.metrics.ScoreMetaData = make([]*structs.NodeScoreMeta, len(c.top))
	for i := range c.top {
		r := &c.top[i]
		scores := make(map[string]float64, r.nscores)
		for _, s := range r.scores[:r.nscores] {
			scores[s.name.String()] = s.value
		}
		meta[i] = structs.NodeScoreMeta{NodeID: r.node.ID, Scores: scores, NormScore: r.score}
		c.metrics.ScoreMetaData[i] = &meta[i]
	}
}
