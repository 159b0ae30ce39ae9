package scheduler

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// explain reports every constraint of the current group the node fails,
// with the node's value of each reference, where Feasible stops at the
// first: the node pool, each constraint, distinct_hosts and every
// distinct_property. The class cache is neither read nor written, so the
// verdict is computed fresh. Used by ExplainNode only.
func (c *constraintChecker) explain(n *structs.Node, _ *structs.TaskGroup) []string {
	var out []string
	if c.pool != structs.NodePoolAll && c.pool != structs.NodePoolOf(n) {
		out = append(out, fmt.Sprintf("node pool %q is not the job's node pool %q", structs.NodePoolOf(n), c.pool))
	}
	g := c.cur
	if g == nil {
		return out
	}
	for _, list := range [][]compiledConstraint{g.cacheable, g.escaped} {
		for i := range list {
			if !list[i].check(c.cache, n) {
				out = append(out, constraintFailure(&list[i], n))
			}
		}
	}
	if g.distinctHosts != distinctNone {
		if ok, _ := c.distinctHostsOK(g, n); !ok {
			scope := "group " + strconv.Quote(g.name)
			if g.distinctHosts == distinctJob {
				scope = "job " + strconv.Quote(c.job.ID)
			}
			out = append(out, fmt.Sprintf("constraint %q: the node already runs an allocation of %s",
				structs.ConstraintDistinctHosts, scope))
		}
	}
	for _, ps := range g.properties {
		if ps.feasible(n) {
			continue
		}
		v, ok := ps.cc.l.resolve(n)
		if !ok {
			out = append(out, fmt.Sprintf("constraint %q: %s is not set on the node", ps.cc.reason, ps.cc.c.LTarget))
			continue
		}
		out = append(out, fmt.Sprintf("constraint %q: %d allocation(s) already use %s = %q (limit %d)",
			ps.cc.reason, ps.used[v], ps.cc.c.LTarget, v, ps.limit))
	}
	return out
}

// constraintFailure describes a failed constraint with the node's values of
// its references: `constraint "${attr.kernel.name} = windows": ${attr.kernel.name} is "linux"`.
func constraintFailure(cc *compiledConstraint, n *structs.Node) string {
	var values []string
	for _, side := range []struct {
		t   target
		raw string
	}{{cc.l, cc.c.LTarget}, {cc.r, cc.c.RTarget}} {
		if side.t.kind == targetLiteral {
			continue
		}
		if v, ok := side.t.resolve(n); ok {
			values = append(values, fmt.Sprintf("%s is %q", side.raw, v))
		} else {
			values = append(values, side.raw+" is not set")
		}
	}
	s := fmt.Sprintf("constraint %q", cc.reason)
	if len(values) > 0 {
		s += ": " + strings.Join(values, ", ")
	}
	return s
}
