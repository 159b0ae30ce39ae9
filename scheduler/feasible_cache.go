package scheduler

import "github.com/nomadish/nomadish/structs"

// feasibleCache remembers, per task group and node position in the stack's
// list, the verdict of the static feasibility checkers: whether the node
// passes them all and, if not, the first reason it fails for. The verdicts
// hold for the whole eval (nodes and the group do not change), so a node
// skipped by one placement costs a slice read on the next, not a walk over
// its attributes, drivers and constraints. Owned by the stack's goroutine.
type feasibleCache struct {
	groups  map[string]*verdicts // by group name
	cur     *verdicts            // the current group's; nil: caching off
	reasons []string             // a failed verdict v means reasons[v-2]
	index   map[string]uint16    // reason -> its verdict
	// counts are the nodes filtered per failed verdict in the current
	// Select, which flush adds to the metric's ConstraintFiltered.
	counts  []int
	counted bool
}

// Verdicts: 0 not checked yet, 1 feasible, v >= 2 failed for
// reasons[v-2]. A failed verdict of a node with a class (counted in the
// metric's ClassFiltered) carries verdictClassed besides, so that a node
// filtered from the cache is not read at all when it has none.
const (
	verdictUnknown  = 0
	verdictFeasible = 1
	verdictClassed  = 1 << 15
	maxVerdict      = verdictClassed - 1
)

// verdicts are one group's, by node position, in pages allocated on first
// use: an eval placing a few allocations on a large cluster pays for the
// nodes it looks at.
type verdicts struct{ pages [][]uint16 }

const verdictPageBits = 10

// at returns the verdict cell of position pos.
func (v *verdicts) at(pos int) *uint16 {
	p := pos >> verdictPageBits
	if p >= len(v.pages) {
		v.pages = append(v.pages, make([][]uint16, p+1-len(v.pages))...)
	}
	if v.pages[p] == nil {
		v.pages[p] = make([]uint16, 1<<verdictPageBits)
	}
	return &v.pages[p][pos&(1<<verdictPageBits-1)]
}

// setTaskGroup selects tg's verdicts.
func (c *feasibleCache) setTaskGroup(tg string) {
	if c.groups == nil {
		c.groups = map[string]*verdicts{}
	}
	v, ok := c.groups[tg]
	if !ok {
		v = &verdicts{}
		c.groups[tg] = v
	}
	c.cur = v
}

// verdict returns the verdict of the node at pos (verdictFeasible, or the
// failed one), asking checkers the first time only, and the reason of a
// failure. A failure whose reason could not be interned returns
// verdictUnknown.
func (c *feasibleCache) verdict(pos int, n *structs.Node, checkers []feasibilityChecker) (uint16, string) {
	cell := c.cur.at(pos)
	switch v := *cell; v {
	case verdictFeasible:
		return v, ""
	case verdictUnknown:
	default:
		return v, c.reasons[v&^verdictClassed-2]
	}
	for _, ch := range checkers {
		if ok, reason := ch.Feasible(n); !ok {
			v, ok := c.reasonVerdict(reason)
			if ok {
				if n.NodeClass != "" {
					v |= verdictClassed
				}
				*cell = v
			}
			return v, reason
		}
	}
	*cell = verdictFeasible
	return verdictFeasible, ""
}

// count counts a node filtered with the failed verdict v (without
// verdictClassed).
func (c *feasibleCache) count(v uint16) {
	if int(v) >= len(c.counts) {
		c.counts = append(c.counts, make([]int, int(v)+1-len(c.counts))...)
	}
	c.counts[v]++
	c.counted = true
}

// flush adds the counts of the current Select to m's ConstraintFiltered
// and resets them.
func (c *feasibleCache) flush(m *structs.AllocMetric) {
	if !c.counted {
		return
	}
	if m.ConstraintFiltered == nil {
		m.ConstraintFiltered = map[string]int{}
	}
	for v, n := range c.counts {
		if n > 0 {
			m.ConstraintFiltered[c.reasons[v-2]] += n
			c.counts[v] = 0
		}
	}
	c.counted = false
}

// reasonVerdict interns reason; false (and verdictUnknown) when the
// verdicts ran out: the node is then checked again on its next visit.
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
