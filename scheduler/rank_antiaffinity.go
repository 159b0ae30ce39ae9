package scheduler

import (
	"fmt"

	"github.com/nomadish/nomadish/structs"
)

// groupAllocs returns the live allocations of the job's group tg as they
// would be once the plan is applied: the state's, less what the plan stops,
// evicts or replaces in place, plus what the plan places. The preference
// scorers count from it once per group and eval, then keep their counts
// up to date with placed.
func (c *evalContext) groupAllocs(job *structs.Job, tg string) ([]*structs.Allocation, error) {
	if c.jobAllocs == nil {
		all, err := c.state.AllocsByJob(job.Namespace, job.ID)
		if err != nil {
			return nil, fmt.Errorf("looking up allocs of job %q: %w", job.ID, err)
		}
		c.jobAllocs = all
	}
	gone := map[string]bool{}
	for _, m := range []map[string][]*structs.Allocation{c.plan.NodeUpdate, c.plan.NodePreemptions, c.plan.NodeAllocation} {
		for _, as := range m {
			for _, a := range as {
				gone[a.ID] = true
			}
		}
	}
	var out []*structs.Allocation
	for _, a := range c.jobAllocs {
		if a.TaskGroup == tg && !a.TerminalStatus() && !gone[a.ID] {
			out = append(out, a)
		}
	}
	for _, as := range c.plan.NodeAllocation {
		for _, a := range as {
			if a.JobID == job.ID && a.Namespace == job.Namespace && a.TaskGroup == tg && !a.TerminalStatus() {
				out = append(out, a)
			}
		}
	}
	return out, nil
}

// jobAntiAffinityIterator penalises nodes that already hold (or will, with
// the plan) allocations of the same job and group, as Nomad's
// JobAntiAffinityIterator: -(collisions+1)/count, averaged in only when
// there is a collision; 0 is recorded otherwise.
type jobAntiAffinityIterator struct {
	ctx    *evalContext
	source rankIterator
	job    *structs.Job
	groups map[string]*antiAffinityGroup // by group name, built on first use
	cur    *antiAffinityGroup
}

type antiAffinityGroup struct {
	desired int
	onNode  map[string]int // node ID -> live allocs of the group there
	// byPos is onNode by node position in the stack's list: the count+1,
	// 0 when not looked up yet.
	byPos []int32
}

// collisions returns the group's allocations on the node at position pos
// (-1: none).
func (g *antiAffinityGroup) collisions(n *structs.Node, pos int32) int {
	if pos < 0 {
		return g.onNode[n.ID]
	}
	if int(pos) >= len(g.byPos) {
		g.byPos = append(g.byPos, make([]int32, int(pos)+1-len(g.byPos))...)
	}
	if g.byPos[pos] == 0 {
		g.byPos[pos] = int32(g.onNode[n.ID]) + 1
	}
	return int(g.byPos[pos] - 1)
}

// setTaskGroup switches to tg, counting its allocations per node the first
// time it is seen in this eval.
func (it *jobAntiAffinityIterator) setTaskGroup(tg *structs.TaskGroup) error {
	if g := it.groups[tg.Name]; g != nil {
		it.cur = g
		return nil
	}
	allocs, err := it.ctx.groupAllocs(it.job, tg.Name)
	if err != nil {
		return err
	}
	g := &antiAffinityGroup{desired: tg.Count, onNode: make(map[string]int, max(len(allocs), tg.Count))}
	for _, a := range allocs {
		g.onNode[a.NodeID]++
	}
	if it.groups == nil {
		it.groups = map[string]*antiAffinityGroup{}
	}
	it.groups[tg.Name], it.cur = g, g
	return nil
}

// placed counts an allocation of the current group placed on node, at
// position pos of the stack's list (-1: unknown, which forgets byPos).
func (it *jobAntiAffinityIterator) placed(n *structs.Node, pos int32) {
	g := it.cur
	g.onNode[n.ID]++
	switch {
	case pos < 0:
		clear(g.byPos)
	case int(pos) < len(g.byPos) && g.byPos[pos] != 0:
		g.byPos[pos]++
	}
}

func (it *jobAntiAffinityIterator) Next() *rankedNode {
	r := it.source.Next()
	if r == nil {
		return nil
	}
	v, applies := antiAffinityScore(it.cur.collisions(r.node, r.pos), it.cur.desired)
	r.addScore(scorerJobAntiAffinity, v, applies)
	return r
}

func (it *jobAntiAffinityIterator) Reset() { it.source.Reset() }

// antiAffinityScore is the score for a node holding collisions allocations
// of a group of count desired, and whether it applies.
func antiAffinityScore(collisions, desired int) (float64, bool) {
	if collisions == 0 || desired <= 0 {
		return 0, false
	}
	return -float64(collisions+1) / float64(desired), true
}

// reschedulePenaltyIterator scores -1 for the nodes a rescheduled
// allocation failed on (its previous node and those of its reschedule
// events), as Nomad's NodeReschedulingPenaltyIterator; 0 (not averaged in)
// elsewhere.
type reschedulePenaltyIterator struct {
	source  rankIterator
	penalty map[string]bool // node IDs; nil for an ordinary placement
}

func (it *reschedulePenaltyIterator) Next() *rankedNode {
	r := it.source.Next()
	if r == nil {
		return nil
	}
	if it.penalty != nil && it.penalty[r.node.ID] {
		r.addScore(scorerReschedulePenalty, -1, true)
	} else {
		r.addScore(scorerReschedulePenalty, 0, false)
	}
	return r
}

func (it *reschedulePenaltyIterator) Reset() { it.source.Reset() }

// penaltyNodes returns the nodes a replacement of prev should avoid: prev's
// node and the previous nodes of its reschedule events. nil for nil prev.
func penaltyNodes(prev *structs.Allocation) map[string]bool {
	if prev == nil {
		return nil
	}
	out := map[string]bool{prev.NodeID: true}
	if t := prev.RescheduleTracker; t != nil {
		for _, e := range t.Events {
			if e != nil && e.PrevNodeID != "" {
				out[e.PrevNodeID] = true
			}
		}
	}
	return out
}
