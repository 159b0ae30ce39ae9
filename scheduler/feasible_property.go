package scheduler

import (
	"fmt"
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// propertySet enforces one distinct_property constraint: at most limit
// (RTarget, default 1) live allocations of the job (job level) or of the
// group (group or task level) per value of the property LTarget, counting
// the state's allocations less those the plan stops plus those it places.
type propertySet struct {
	cc    compiledConstraint
	group string // "" at job level
	limit int
	used  map[string]int // property value -> allocations, set by count
	// nodeValues caches the property of the nodes allocations are on.
	nodeValues map[string]nodeValue
}

type nodeValue struct {
	v  string
	ok bool
}

func newPropertySet(cc compiledConstraint, group string, groupLevel bool) *propertySet {
	limit := 1
	if n, err := strconv.Atoi(cc.c.RTarget); err == nil && n > 0 {
		limit = n
	}
	ps := &propertySet{cc: cc, limit: limit, used: map[string]int{}, nodeValues: map[string]nodeValue{}}
	if groupLevel {
		ps.group = group
	}
	return ps
}

// count recomputes used from the job's allocations in the state and the
// plan so far. It runs once per Select of the group.
func (ps *propertySet) count(c *constraintChecker) error {
	if !c.readAlloc {
		allocs, err := c.ctx.state.AllocsByJob(c.job.Namespace, c.job.ID)
		if err != nil {
			return fmt.Errorf("looking up allocs of job %q: %w", c.job.ID, err)
		}
		c.jobAllocs, c.readAlloc = allocs, true
	}
	clear(ps.used)
	plan := c.ctx.plan
	planned := map[string]bool{}
	for nodeID, allocs := range plan.NodeAllocation {
		for _, a := range allocs {
			if !ps.counts(c.job, a) {
				continue
			}
			planned[a.ID] = true
			if err := ps.add(c, nodeID); err != nil {
				return err
			}
		}
	}
	for _, a := range c.jobAllocs {
		if !ps.counts(c.job, a) || planned[a.ID] || stoppedInPlan(plan, a) {
			continue
		}
		if err := ps.add(c, a.NodeID); err != nil {
			return err
		}
	}
	return nil
}

// counts reports whether a is a live allocation of the job (and group).
func (ps *propertySet) counts(job *structs.Job, a *structs.Allocation) bool {
	return !a.TerminalStatus() && a.JobID == job.ID && a.Namespace == job.Namespace &&
		(ps.group == "" || a.TaskGroup == ps.group)
}

func (ps *propertySet) add(c *constraintChecker, nodeID string) error {
	nv, ok := ps.nodeValues[nodeID]
	if !ok {
		n, err := c.ctx.state.NodeByID(nodeID)
		if err != nil {
			return fmt.Errorf("looking up node %q: %w", nodeID, err)
		}
		if n != nil {
			nv.v, nv.ok = ps.cc.l.resolve(n)
		}
		ps.nodeValues[nodeID] = nv
	}
	if nv.ok {
		ps.used[nv.v]++
	}
	return nil
}

// feasible reports whether one more allocation fits on n: n has the
// property and its value is used fewer than limit times.
func (ps *propertySet) feasible(n *structs.Node) bool {
	v, ok := ps.cc.l.resolve(n)
	return ok && ps.used[v] < ps.limit
}

func stoppedInPlan(plan *structs.Plan, a *structs.Allocation) bool {
	for _, m := range []map[string][]*structs.Allocation{plan.NodeUpdate, plan.NodePreemptions} {
		for _, s := range m[a.NodeID] {
			if s.ID == a.ID {
				return true
			}
		}
	}
	return false
}
