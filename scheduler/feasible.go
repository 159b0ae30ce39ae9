package scheduler

import (
	"fmt"

	"github.com/nomadish/nomadish/structs"
)

// nodeIterator yields candidate nodes one at a time; nil means exhausted.
// Reset starts a new pass for the next Select.
type nodeIterator interface {
	Next() *structs.Node
	Reset()
}

// feasibilityChecker rules a node in or out for the current job and group;
// reason (counted in AllocMetric.ConstraintFiltered) says why it is out.
type feasibilityChecker interface {
	Feasible(node *structs.Node) (ok bool, reason string)
}

// staticIterator walks a fixed (shuffled) node list. Each pass starts where
// the last one stopped and wraps around once, so successive placements spread
// over the list instead of re-reading its head.
type staticIterator struct {
	ctx    *evalContext
	nodes  []*structs.Node
	offset int
	seen   int
	// slotted is true while nodes is the list the stack was built with:
	// the per-eval caches (feasibility verdicts, node slots: node_slots.go)
	// are then indexed by a node's position in it. A stand-in list (the
	// system scheduler's one node, a preferred node) turns them off.
	slotted bool
	pos     int // the position of the node Next returned last
}

func (it *staticIterator) Next() *structs.Node {
	if it.seen == len(it.nodes) {
		return nil
	}
	it.pos = it.offset
	n := it.nodes[it.offset]
	it.offset = (it.offset + 1) % len(it.nodes)
	it.seen++
	it.ctx.evaluatedNode()
	return n
}

func (it *staticIterator) Reset() { it.seen = 0 }

// slot is the position of the node Next returned last in the stack's own
// list, or -1 when the list is a stand-in.
func (it *staticIterator) slot() int {
	if it.slotted {
		return it.pos
	}
	return -1
}

// feasibilityIterator passes on the nodes every checker accepts and counts
// the first reason each other node fails for. On the stack's own node list
// it asks the checkers whose verdict depends only on the node and the group
// (static) once per node and group in an eval (feasibleCache), and only
// the plan-dependent part of the constraints (distinct_hosts,
// distinct_property) on every pass.
type feasibilityIterator struct {
	ctx      *evalContext
	source   *staticIterator
	checkers []feasibilityChecker
	static   []feasibilityChecker // checkers with the constraints' static part in place of the constraints
	dynamic  *constraintChecker   // its plan-dependent part
	cache    feasibleCache
}

func (it *feasibilityIterator) Next() *structs.Node {
next:
	for n := it.source.Next(); n != nil; n = it.source.Next() {
		if pos := it.source.slot(); pos >= 0 && it.cache.cur != nil {
			if v, reason := it.cache.verdict(pos, n, it.static); v != verdictFeasible {
				switch {
				case v == verdictUnknown: // not cached
					it.ctx.filteredNode(n, reason)
				case v&verdictClassed != 0:
					it.ctx.filteredClass(n)
					it.cache.count(v &^ verdictClassed)
				default:
					it.ctx.metrics.NodesFiltered++ // no class: the node is not read
					it.cache.count(v)
				}
				continue next
			}
			if ok, reason := it.dynamic.dynamicFeasible(n); !ok {
				it.ctx.filteredNode(n, reason)
				continue next
			}
			return n
		}
		for _, c := range it.checkers {
			if ok, reason := c.Feasible(n); !ok {
				it.ctx.filteredNode(n, reason)
				continue next
			}
		}
		return n
	}
	return nil
}

func (it *feasibilityIterator) Reset() { it.source.Reset() }

// datacenterChecker accepts nodes in one of the job's datacenters ("*" and
// globs like "dc*" allowed).
type datacenterChecker struct{ datacenters []string }

func (c *datacenterChecker) Feasible(n *structs.Node) (bool, string) {
	if matchDatacenter(c.datacenters, n.Datacenter) {
		return true, ""
	}
	return false, "missing datacenter"
}

// readyChecker accepts nodes that are ready, eligible and not draining.
type readyChecker struct{}

func (readyChecker) Feasible(n *structs.Node) (bool, string) {
	switch {
	case n.Status != structs.NodeStatusReady:
		return false, "node " + n.Status
	case n.Drain:
		return false, "node draining"
	case n.SchedulingEligibility == structs.NodeSchedulingIneligible:
		return false, "node ineligible"
	}
	return true, ""
}

// driverChecker accepts nodes where every driver the group's tasks use is
// detected and healthy (or, for nodes fingerprinted the old way, where the
// attribute "driver.<name>" is true). Drivers and attributes are part of the
// computed class, so the verdict is cached per class for the current group.
type driverChecker struct {
	drivers []string
	group   string
	byClass map[string]string // computed class -> failure reason ("" when ok)
}

func (c *driverChecker) setTaskGroup(tg *structs.TaskGroup) {
	if c.byClass != nil && c.group == tg.Name {
		return
	}
	c.group, c.byClass = tg.Name, map[string]string{}
	c.drivers = c.drivers[:0]
	seen := map[string]bool{}
	for _, t := range tg.Tasks {
		if !seen[t.Driver] {
			seen[t.Driver] = true
			c.drivers = append(c.drivers, t.Driver)
		}
	}
}

func (c *driverChecker) Feasible(n *structs.Node) (bool, string) {
	if reason, ok := c.byClass[n.ComputedClass]; ok && n.ComputedClass != "" {
		return reason == "", reason
	}
	reason := ""
	for _, d := range c.drivers {
		if ok, r := driverHealthy(n, d); !ok {
			reason = r
			break
		}
	}
	if n.ComputedClass != "" && c.byClass != nil {
		c.byClass[n.ComputedClass] = reason
	}
	return reason == "", reason
}

func driverHealthy(n *structs.Node, name string) (bool, string) {
	if info := n.Drivers[name]; info != nil {
		switch {
		case !info.Detected:
			return false, fmt.Sprintf("missing driver %q", name)
		case !info.Healthy:
			return false, fmt.Sprintf("driver %q unhealthy", name)
		}
		return true, ""
	}
	switch n.Attributes["driver."+name] {
	case "1", "true":
		return true, ""
	}
	return false, fmt.Sprintf("missing driver %q", name)
}
