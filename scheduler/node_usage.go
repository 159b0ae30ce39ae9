package scheduler

import (
	"fmt"

	"github.com/nomadish/nomadish/structs"
)

// nodeUsage is what one node offers and what the plan so far would leave
// used on it, kept per eval so that ranking a node does not re-read and
// re-add its allocations on every placement. Its Usage is the one fit
// check's (structs.Usage, which structs.AllocsFit builds for the plan
// applier) over evalContext.proposedAllocs: new placements of the plan are
// added as they appear; any other change (a stop or preemption added, an
// in-place update of an alloc already on the node) makes it recompute from
// proposedAllocs.
type nodeUsage struct {
	structs.Usage // Avail: node.Comparable(), computed once; Used: the proposed allocs' sum

	existing []*structs.Allocation // the state's live allocs on the node (nil when summed: see summed)
	summed   bool                  // Used started from the state's sum (NodeUsageState): existing was not read
	placed   int                   // len(plan.NodeAllocation[node]) accounted for
	removed  int                   // len(NodeUpdate)+len(NodePreemptions) accounted for
}

// usage returns the node's usage with the plan as it is now. The returned
// value is owned by the context and valid until the next call. A node that
// holds nothing, in state or in the plan, is not remembered (its usage is
// zero): per-eval memory grows with the nodes in use, not with the nodes
// looked at.
func (c *evalContext) usage(n *structs.Node) (*nodeUsage, error) {
	removed := len(c.plan.NodeUpdate[n.ID]) + len(c.plan.NodePreemptions[n.ID])
	u, fresh, err := c.usageWith(n, c.usages[n.ID], removed, c.plan.NodeAllocation[n.ID])
	if fresh {
		if c.usages == nil {
			c.usages = map[string]*nodeUsage{}
		}
		c.usages[n.ID] = u
	}
	return u, err
}

// usageWith is usage given the node's remembered usage u (nil: none), the
// number of its allocations the plan stops or evicts and those it places.
// fresh says the usage returned is new: the caller remembers it.
func (c *evalContext) usageWith(n *structs.Node, u *nodeUsage, removed int, placed []*structs.Allocation) (_ *nodeUsage, fresh bool, _ error) {
	if u == nil && removed == 0 && len(placed) == 0 {
		live, err := c.liveCount(n.ID)
		if err != nil {
			return nil, false, err
		}
		if live == 0 {
			c.pristine = nodeUsage{Usage: structs.NewUsage(n)}
			return &c.pristine, false, nil
		}
	}
	if u == nil || removed != u.removed {
		return c.recomputeUsage(n, u, removed, placed)
	}
	for _, a := range placed[u.placed:] {
		inPlace, err := c.liveInState(u, n.ID, a.ID)
		if err != nil {
			return nil, false, err
		}
		if inPlace { // an in-place update: the old version leaves
			return c.recomputeUsage(n, u, removed, placed)
		}
		u.Add(a)
	}
	u.placed = len(placed)
	return u, false, nil
}

// recomputeUsage rebuilds the node's usage u (nil: a new one, fresh) from
// the plan's removed count and placed allocations: directly from the
// state's and the plan's allocations when the plan stops nothing on the
// node (the common case, without building a slice), else from
// proposedAllocs.
func (c *evalContext) recomputeUsage(n *structs.Node, u *nodeUsage, removed int, placed []*structs.Allocation) (_ *nodeUsage, fresh bool, _ error) {
	if u == nil {
		u, fresh = c.newUsage(), true
		u.Usage = structs.NewUsage(n)
	}
	u.Used = structs.ComparableResources{}
	u.placed = len(placed)
	u.removed = removed
	u.summed = false
	if removed == 0 && c.sums != nil { // the state's sum, less in-place updates' old versions
		used, _, err := c.sums.NodeLiveUsage(n.ID)
		if err != nil {
			return nil, false, fmt.Errorf("reading the usage of node %q: %w", n.ID, err)
		}
		u.Used, u.summed, u.existing = used, true, nil
		for _, a := range placed {
			old, err := c.sums.AllocByID(a.ID)
			if err != nil {
				return nil, false, fmt.Errorf("looking up alloc %q: %w", a.ID, err)
			}
			if old != nil && old.NodeID == n.ID && !old.TerminalStatus() {
				u.Used.Subtract(old.AllocatedResources.Comparable())
			}
			u.Add(a)
		}
		return u, fresh, nil
	}
	if removed == 0 { // proposedAllocs' sum, without building its slice
		existing, err := c.stateAllocs(n.ID)
		if err != nil {
			return nil, false, err
		}
		u.existing = existing
		for _, a := range existing {
			if !hasAlloc(placed, a.ID) {
				u.Add(a)
			}
		}
		for _, a := range placed {
			u.Add(a)
		}
		return u, fresh, nil
	}
	proposed, err := c.proposedAllocs(n.ID)
	if err != nil {
		return nil, false, err
	}
	u.existing = c.nodeAllocs[n.ID]
	for _, a := range proposed {
		u.Add(a)
	}
	return u, fresh, nil
}

// liveCount is how many live allocations the state holds on the node.
func (c *evalContext) liveCount(id string) (int, error) {
	if c.sums != nil {
		if existing, ok := c.nodeAllocs[id]; ok {
			return len(existing), nil
		}
		_, live, err := c.sums.NodeLiveUsage(id)
		if err != nil {
			return 0, fmt.Errorf("reading the usage of node %q: %w", id, err)
		}
		return live, nil
	}
	existing, err := c.stateAllocs(id)
	return len(existing), err
}

// liveInState reports whether the state holds allocation id live on the
// node whose usage is u: a placement of it is an in-place update.
func (c *evalContext) liveInState(u *nodeUsage, nodeID, id string) (bool, error) {
	if !u.summed {
		return hasAlloc(u.existing, id), nil
	}
	old, err := c.sums.AllocByID(id)
	if err != nil {
		return false, fmt.Errorf("looking up alloc %q: %w", id, err)
	}
	return old != nil && old.NodeID == nodeID && !old.TerminalStatus(), nil
}

// hasAlloc reports whether allocs holds an allocation with the ID (an
// in-place update of it).
func hasAlloc(allocs []*structs.Allocation, id string) bool {
	for _, a := range allocs {
		if a.ID == id {
			return true
		}
	}
	return false
}

// stateAllocs returns the state's live (non-terminal) allocations on the
// node, remembering them when there are any. Terminal ones are not read:
// they use nothing, and a node that ran many batch jobs holds thousands.
func (c *evalContext) stateAllocs(id string) ([]*structs.Allocation, error) {
	if existing, ok := c.nodeAllocs[id]; ok {
		return existing, nil
	}
	existing, err := c.state.LiveAllocsByNode(id)
	if err != nil {
		return nil, fmt.Errorf("looking up allocs on node %q: %w", id, err)
	}
	if len(existing) > 0 {
		c.nodeAllocs[id] = existing
	}
	return existing, nil
}

// newUsage hands out a zeroed nodeUsage from a slab, so that the nodes
// ranked in one eval cost one allocation per 64 of them.
func (c *evalContext) newUsage() *nodeUsage {
	if len(c.usageSlab) == cap(c.usageSlab) {
		c.usageSlab = make([]nodeUsage, 0, 64)
	}
	c.usageSlab = append(c.usageSlab, nodeUsage{})
	return &c.usageSlab[len(c.usageSlab)-1]
}

// node returns the node with the ID from the state (nil when gone), reading
// each node once per eval.
func (c *evalContext) node(id string) (*structs.Node, error) {
	if n, ok := c.nodesByID[id]; ok {
		return n, nil
	}
	n, err := c.state.NodeByID(id)
	if err != nil {
		return nil, fmt.Errorf("looking up node %q: %w", id, err)
	}
	if c.nodesByID == nil {
		c.nodesByID = map[string]*structs.Node{}
	}
	c.nodesByID[id] = n
	return n, nil
}
