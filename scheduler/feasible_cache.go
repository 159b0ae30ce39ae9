package scheduler

import "github.com/nomadish/nomadish/structs"

// feasibleCache remembers, per task group and node position in the stack's
// list, the verdict of the static feasibility checkers: whether the node
// passes them all and, if not, the first reason it fails for. The verdicts
// hold for the whole eval (nodes and the group do not change), so a node
// skipped by one placement costs a slice read on the next, not a walk over
// its attributes, drivers and constraints. Owned by the stack's goroutine.
type feasibleCache struct {
	groups  map[string][]uint16 // group name -> verdict per node position
	cur     []uint16            // the current group's; nil: caching off
	reasons []string            // a failed verdict v means reasons[v-2]
	index   map[string]uint16   // reason -> its verdict
}

// Verdicts: 0 not checked yet, 1 feasible, v >= 2 failed for reasons[v-2].
const (
	verdictUnknown  = 0
	verdictFeasible = 1
	maxVerdict      = 1<<16 - 1
)

// setTaskGroup selects tg's verdicts over nodes positions.
func (c *feasibleCache) setTaskGroup(tg string, nodes int) {
	if c.groups == nil {
		c.groups = map[string][]uint16{}
	}
	v, ok := c.groups[tg]
	if !ok || len(v) != nodes {
		v = make([]uint16, nodes)
		c.groups[tg] = v
	}
	c.cur = v
}

// verdict returns whether the node at pos passes checkers and, if not, the
// first failure's reason, asking the checkers the first time only.
func (c *feasibleCache) verdict(pos int, n *structs.Node, checkers []feasibilityChecker) (string, bool) {
	switch v := c.cur[pos]; v {
	case verdictFeasible:
		return "", true
	case verdictUnknown:
	default:
		return c.reasons[v-2], false
	}
	for _, ch := range checkers {
		if ok, reason := ch.Feasible(n); !ok {
			if v, ok := c.reasonVerdict(reason); ok {
				c.cur[pos] = v
			}
			return reason, false
		}
	}
	c.cur[pos] = verdictFeasible
	return "", true
}

// reasonVerdict interns reason; false when the verdicts ran out (the node
// is then checked again on its next visit).
func (c *feasibleCache) reasonVerdict(reason string) (uint16, bool) {
	if v, ok := c.index[reason]; ok {
		return v, true
	}
	if len(c.reasons)+2 > maxVerdict {
		return 0, false
	}
	if c.index == nil {
		c.index = map[string]uint16{}
	}
	v := uint16(len(c.reasons) + 2)
	c.reasons = append(c.reasons, reason)
	c.index[reason] = v
	return v, true
}

// staticConstraints is the part of the constraint checker whose verdict
// depends only on the node and the group (feasible_constraint.go).
type staticConstraints struct{ c *constraintChecker }

func (s staticConstraints) Feasible(n *structs.Node) (bool, string) { return s.c.staticFeasible(n) }
