package scheduler

import (
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// Reasons counted in AllocMetric.ConstraintFiltered besides a failed
// constraint's String().
const (
	reasonNodePool      = "node pool"
	reasonDistinctHosts = structs.ConstraintDistinctHosts
)

// compiledConstraint is a constraint parsed once per eval, so that checking
// it against a node neither parses nor allocates.
type compiledConstraint struct {
	c      *structs.Constraint
	reason string // the constraint's String(): its ConstraintFiltered key
	op     operator
	l, r   target
}

func compileConstraint(c *structs.Constraint) compiledConstraint {
	return compiledConstraint{c: c, reason: strings.TrimSpace(c.String()), op: parseOperator(c.Operand),
		l: parseTarget(c.LTarget), r: parseTarget(c.RTarget)}
}

func (cc *compiledConstraint) check(cache *constraintCache, n *structs.Node) bool {
	l, lok := cc.l.resolve(n)
	r, rok := cc.r.resolve(n)
	return cache.checkOperator(cc.op, l, r, lok, rok)
}

// groupConstraints is what one task group must satisfy: the job's
// constraints, the group's and its tasks', compiled and sorted by how they
// are checked.
type groupConstraints struct {
	name      string
	cacheable []compiledConstraint // same result on every node of a computed class
	escaped   []compiledConstraint // checked on each node (unique.* targets)
	// distinctHosts: none, or at most one allocation of the job (job level)
	// or of the group (group or task level) per node.
	distinctHosts distinctScope
	properties    []*propertySet
	// classes caches, per computed class, -1 when the class passes every
	// cacheable constraint, else the index of the first that fails.
	classes map[string]int
}

type distinctScope uint8

const (
	distinctNone distinctScope = iota
	distinctGroup
	distinctJob
)

// constraintChecker is the feasibility checker for the job's node pool and
// its constraints (job, group and task level, including distinct_hosts and
// distinct_property). It caches per computed class, for the whole eval, the
// outcome of the constraints that read no unique value, and records it for
// the blocked eval (classEligibility). Owned by the stack's goroutine.
type constraintChecker struct {
	ctx    *evalContext
	job    *structs.Job
	pool   string
	cache  *constraintCache
	groups map[string]*groupConstraints
	cur    *groupConstraints
	elig   classEligibility
	// jobAllocs are the job's allocations in the state, read once when a
	// distinct_property constraint first needs them.
	jobAllocs []*structs.Allocation
	readAlloc bool
}

func newConstraintChecker(ctx *evalContext, job *structs.Job) *constraintChecker {
	pool := job.NodePool
	if pool == "" {
		pool = structs.NodePoolDefault
	}
	return &constraintChecker{ctx: ctx, job: job, pool: pool, cache: newConstraintCache(),
		groups: map[string]*groupConstraints{}, elig: classEligibility{classes: map[string]bool{}}}
}

// setTaskGroup selects the constraints of tg for the next Select and counts
// the allocations its distinct_property constraints see (state and plan).
func (c *constraintChecker) setTaskGroup(tg *structs.TaskGroup) {
	g, ok := c.groups[tg.Name]
	if !ok {
		g = c.compileGroup(tg)
		c.groups[tg.Name] = g
	}
	c.cur = g
	for _, ps := range g.properties {
		if err := ps.count(c); err != nil {
			c.ctx.err = err
		}
	}
}

func (c *constraintChecker) compileGroup(tg *structs.TaskGroup) *groupConstraints {
	g := &groupConstraints{name: tg.Name, classes: map[string]int{}}
	add := func(cons []*structs.Constraint, groupLevel bool) {
		for _, con := range cons {
			cc := compileConstraint(con)
			switch cc.op {
			case opDistinctHosts:
				scope := distinctGroup
				if !groupLevel {
					scope = distinctJob
				}
				g.distinctHosts = max(g.distinctHosts, scope)
			case opDistinctProperty:
				g.properties = append(g.properties, newPropertySet(cc, tg.Name, groupLevel))
			default:
				if con.Escaped() {
					g.escaped = append(g.escaped, cc)
				} else {
					g.cacheable = append(g.cacheable, cc)
				}
			}
		}
	}
	add(c.job.Constraints, false)
	add(tg.Constraints, true)
	for _, t := range tg.Tasks {
		add(t.Constraints, true)
	}
	if len(g.escaped) > 0 || g.distinctHosts != distinctNone || len(g.properties) > 0 {
		c.elig.escaped = true
	}
	return g
}

// Feasible checks, cheapest first: the node pool, the cacheable constraints
// (once per computed class), the escaped ones, distinct_hosts and
// distinct_property.
func (c *constraintChecker) Feasible(n *structs.Node) (bool, string) {
	if ok, reason := c.staticFeasible(n); !ok {
		return false, reason
	}
	return c.dynamicFeasible(n)
}

// staticFeasible checks what depends only on the node and the group: the
// node pool, the cacheable and the escaped constraints.
func (c *constraintChecker) staticFeasible(n *structs.Node) (bool, string) {
	if c.pool != structs.NodePoolAll && c.pool != structs.NodePoolOf(n) {
		return false, reasonNodePool
	}
	g := c.cur
	if g == nil {
		return true, ""
	}
	if len(g.cacheable) > 0 {
		if i := c.classResult(g, n); i >= 0 {
			return false, g.cacheable[i].reason
		}
	}
	for i := range g.escaped {
		if !g.escaped[i].check(c.cache, n) {
			return false, g.escaped[i].reason
		}
	}
	return true, ""
}

// dynamicFeasible checks what depends on the plan: distinct_hosts and
// distinct_property.
func (c *constraintChecker) dynamicFeasible(n *structs.Node) (bool, string) {
	g := c.cur
	if g == nil {
		return true, ""
	}
	if g.distinctHosts != distinctNone {
		if ok, reason := c.distinctHostsOK(g, n); !ok {
			return false, reason
		}
	}
	for _, ps := range g.properties {
		if !ps.feasible(n) {
			return false, ps.cc.reason
		}
	}
	return true, ""
}

// classResult returns -1 when n passes g's cacheable constraints, else the
// index of the first that fails, from the class cache when n has a
// computed class.
func (c *constraintChecker) classResult(g *groupConstraints, n *structs.Node) int {
	class := n.ComputedClass
	if class != "" {
		if i, ok := g.classes[class]; ok {
			return i
		}
	}
	res := -1
	for i := range g.cacheable {
		if !g.cacheable[i].check(c.cache, n) {
			res = i
			break
		}
	}
	if class != "" {
		g.classes[class] = res
		c.elig.record(class, res < 0)
	}
	return res
}

// distinctHostsOK reports whether n holds no live allocation (state or
// plan) of the job, or of the group for a group-level distinct_hosts.
func (c *constraintChecker) distinctHostsOK(g *groupConstraints, n *structs.Node) (bool, string) {
	proposed, err := c.ctx.proposedAllocs(n.ID)
	if err != nil {
		c.ctx.err = err
		return false, reasonDistinctHosts
	}
	for _, a := range proposed {
		if a.JobID != c.job.ID || a.Namespace != c.job.Namespace {
			continue
		}
		if g.distinctHosts == distinctJob || a.TaskGroup == g.name {
			return false, reasonDistinctHosts
		}
	}
	return true, ""
}

// classEligibility records, per computed class, whether the class passed
// the cacheable constraints of at least one group (true) or failed them all
// (false), and whether any group has constraints the classes cannot tell
// (escaped). The blocked eval carries it so that only a change to a node of
// an eligible or unseen class needs to wake it, unless escaped.
type classEligibility struct {
	classes map[string]bool
	escaped bool
}

func (e *classEligibility) record(class string, ok bool) {
	if ok || !e.classes[class] {
		e.classes[class] = ok
	}
}

// fill sets the eval's ClassEligibility and EscapedComputedClass. A nil
// receiver (no placement was attempted) leaves the eval as it is.
func (e *classEligibility) fill(eval *structs.Evaluation) {
	if e == nil {
		return
	}
	if len(e.classes) > 0 {
		eval.ClassEligibility = make(map[string]bool, len(e.classes))
		for k, v := range e.classes {
			eval.ClassEligibility[k] = v
		}
	}
	eval.EscapedComputedClass = e.escaped
}

// nodesInPool returns the nodes a job in pool may use ("all": every node).
// The slice returned is new when some node is left out.
func nodesInPool(nodes []*structs.Node, pool string) []*structs.Node {
	if pool == structs.NodePoolAll {
		return nodes
	}
	for i, n := range nodes {
		if !structs.InNodePool(pool, n) {
			out := append(make([]*structs.Node, 0, len(nodes)), nodes[:i]...)
			for _, m := range nodes[i+1:] {
				if structs.InNodePool(pool, m) {
					out = append(out, m)
				}
			}
			return out
		}
	}
	return nodes
}
