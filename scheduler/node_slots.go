package scheduler

import (
	"fmt"

	"github.com/nomadish/nomadish/structs"
)

// nodeSlot is what an eval remembers of one node of the stack's own node
// list, found by the node's position in it (staticIterator.slot) rather than
// by hashing its ID: the node's capacity, the state's live allocations on it
// (both fixed for the eval), its usage once it holds something, and the
// Slots come in pages allocated on first use, so
// an eval that looks at a few nodes of a large cluster pays for those.
type nodeSlot struct {
	read  bool // empty and avail are set
	empty bool // the state has no live allocation on the node
	avail structs.ComparableResources
	usage *nodeUsage // nil while the node holds nothing (state or plan)
	stale bool       // the plan may have changed on the node since usage was computed
}

const slotPageBits = 8 // 256 slots per page

// slotTable is the per-eval node slots, by position.
type slotTable struct{ pages [][]nodeSlot }

// at returns the slot of position pos (>= 0), allocating its page first.
func (t *slotTable) at(pos int) *nodeSlot {
	p := pos >> slotPageBits
	if p >= len(t.pages) {
		t.pages = append(t.pages, make([][]nodeSlot, p+1-len(t.pages))...)
	}
	if t.pages[p] == nil {
		t.pages[p] = make([]nodeSlot, 1<<slotPageBits)
	}
	return &t.pages[p][pos&(1<<slotPageBits-1)]
}

// slotUsage is usage for a node of the stack's list with its slot: the
// same answer, without hashing the node's ID for the plan's and the
// context's maps while the plan has not changed on the node. The plan
// changes on a node when the caller places the option Select returned
// (Select marks its slot: planning) or, within an eval, through paths that
// do not know the node's position (a preemption's evictions, a preferred
// node): those mark every slot stale (untrustSlots). The first look at a
// node reads the plan, which holds what the eval stopped before placing,
// unless the plan was empty when the context was made (planWasEmpty).
func (c *evalContext) slotUsage(n *structs.Node, sl *nodeSlot) (*nodeUsage, error) {
	if !sl.read {
		// The slot reads the state once: no need to look in c.nodeAllocs first.
		existing, err := c.state.LiveAllocsByNode(n.ID)
		if err != nil {
			return nil, fmt.Errorf("looking up allocs on node %q: %w", n.ID, err)
		}
		if len(existing) > 0 {
			c.nodeAllocs[n.ID] = existing
		}
		sl.empty, sl.avail, sl.read = len(existing) == 0, n.Comparable(), true
		sl.stale = sl.stale || !c.planWasEmpty
	}
	if !sl.stale && !c.slotsStale {
		if sl.usage != nil {
			return sl.usage, nil
		}
		if sl.empty {
			c.pristine = nodeUsage{Usage: structs.Usage{Avail: sl.avail}}
			return &c.pristine, nil
		}
	}
	removed := len(c.plan.NodeUpdate[n.ID]) + len(c.plan.NodePreemptions[n.ID])
	placed := c.plan.NodeAllocation[n.ID]
	sl.stale = false
	if sl.usage == nil && sl.empty && removed == 0 && len(placed) == 0 {
		c.pristine = nodeUsage{Usage: structs.Usage{Avail: sl.avail}}
		return &c.pristine, nil
	}
	u, _, err := c.usageWith(n, sl.usage, removed, placed) // kept in the slot, not in c.usages
	if err != nil {
		return nil, err
	}
	if u != &c.pristine {
		sl.usage = u
	}
	return u, nil
}

// planning tells the slots the plan is about to change on the node at
// position pos of the stack's list (-1: a node without a slot, or unknown).
func (c *evalContext) planning(pos int32) {
	if pos < 0 {
		c.untrustSlots()
		return
	}
	c.slots.at(int(pos)).stale = true
}

// untrustSlots makes every slot read the plan from now on in this eval: the
// plan changed on nodes whose positions are not known.
func (c *evalContext) untrustSlots() { c.slotsStale = true }

// scoreMemo remembers recent fit scores by the node's capacity, its
// usage with the ask and the algorithm: on a cluster of a few machine
// shapes, ranking a node seldom computes the score's powers of ten. A
// direct-mapped table; an entry holds the last score stored at its index.
type scoreMemo [64]struct {
	ok          bool
	spread      bool
	avail, used structs.ComparableResources
	score       float64
}

// fitScore is fitScore(avail, used, spread), from the memo when there.
func (m *scoreMemo) fitScore(avail, used structs.ComparableResources, spread bool) float64 {
	h := uint64(avail.CpuShares)*0x9e3779b97f4a7c15 ^ uint64(avail.MemoryMB)*0xc2b2ae3d27d4eb4f ^
		uint64(used.CpuShares)*0x165667b19e3779f9 ^ uint64(used.MemoryMB)*0x27d4eb2f165667c5
	e := &m[(h>>32)%uint64(len(m))]
	if !e.ok || e.spread != spread || e.avail != avail || e.used != used {
		e.ok, e.spread, e.avail, e.used = true, spread, avail, used
		e.score = fitScore(avail, used, spread)
	}
	return e.score
}
