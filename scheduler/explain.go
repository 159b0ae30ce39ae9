package scheduler

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// Errors of ResolveNode and ExplainNode.
var (
	ErrUnknownNode   = errors.New("scheduler: no node matches")
	ErrAmbiguousNode = errors.New("scheduler: node prefix matches several nodes")
	ErrUnknownGroup  = errors.New("scheduler: no such task group")
)

// checkExplainer is implemented by feasibility checkers made of several
// checks (every task's driver, every constraint): explain returns every
// check the node fails for group tg, where Feasible stops at the first.
// ExplainNode calls it after Select has set the checker up for tg; ordinary
// placement never calls it.
type checkExplainer interface {
	explain(n *structs.Node, tg *structs.TaskGroup) []string
}

// ResolveNode finds the node ref names: an exact node ID, a unique ID prefix
// or an exact node name. It returns ErrUnknownNode or ErrAmbiguousNode
// (wrapped, naming ref) when there is no single match.
func ResolveNode(state State, ref string) (*structs.Node, error) {
	if ref == "" {
		return nil, fmt.Errorf("%w: empty node reference", ErrUnknownNode)
	}
	nodes, err := state.Nodes()
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	var byPrefix, byName []*structs.Node
	for _, n := range nodes {
		switch {
		case n.ID == ref:
			return n, nil
		case strings.HasPrefix(n.ID, ref):
			byPrefix = append(byPrefix, n)
		case n.Name == ref:
			byName = append(byName, n)
		}
	}
	for _, found := range [][]*structs.Node{byPrefix, byName} {
		switch len(found) {
		case 0:
			continue
		case 1:
			return found[0], nil
		}
		ids := make([]string, len(found))
		for i, n := range found {
			ids[i] = n.ID
		}
		return nil, fmt.Errorf("%w %q: %s", ErrAmbiguousNode, ref, strings.Join(ids, ", "))
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownNode, ref)
}

// ExplainNode answers "why not there?": it runs every feasibility check of
// the placement stack on the node for one allocation of job's group (not
// stopping at the first failure, as ordinary placement does), compares the
// group's ask with the node's free room in every dimension, and, when the
// node could take the group, reports the scores it would get. The verdict is
// against state as it is (the node's live allocations), as if one more
// allocation of the group were placed. The checks are the stack's own list
// (newGenericStack), so a checker added to the stack is explained too.
// Errors: ErrUnknownGroup, ErrUnknownNode (wrapped) or a state read failure.
func ExplainNode(state State, job *structs.Job, group string, nodeID string, now time.Time) (*structs.NodeVerdict, error) {
	return ExplainNodeInPlan(state, nil, job, group, nodeID, now)
}

// ExplainNodeInPlan is ExplainNode against the cluster as plan would leave
// it: the allocations plan stops or preempts free their room, and those it
// places take theirs (`job plan` passes its dry run's plan, so the verdict
// agrees with the dry run). A nil plan is an empty one. plan is not modified.
func ExplainNodeInPlan(state State, plan *structs.Plan, job *structs.Job, group string, nodeID string, now time.Time) (*structs.NodeVerdict, error) {
	tg := job.LookupTaskGroup(group)
	if tg == nil {
		return nil, fmt.Errorf("%w %q in job %q", ErrUnknownGroup, group, job.ID)
	}
	node, err := state.NodeByID(nodeID)
	if err != nil {
		return nil, fmt.Errorf("looking up node %q: %w", nodeID, err)
	}
	if node == nil {
		return nil, fmt.Errorf("%w %q", ErrUnknownNode, nodeID)
	}
	if plan == nil {
		eval := &structs.Evaluation{ID: "explain-" + job.ID, Namespace: job.Namespace, Priority: job.Priority, JobID: job.ID}
		plan = structs.NewPlan(eval, job)
	}
	ctx := newEvalContext(state, plan)
	stack := newGenericStack(ctx, job, []*structs.Node{node}, map[string]int{}, job.Type == structs.JobTypeBatch,
		func() time.Time { return now })
	// Select sets every checker and scorer up for the group (whatever each
	// needs), ranks the node if it can take the group, and leaves a metric.
	option, metric, err := stack.Select(tg)
	if err != nil {
		return nil, err
	}
	v := &structs.NodeVerdict{NodeID: node.ID, NodeName: node.Name, Failures: allFailures(stack.checkers, node, tg)}
	v.Feasible = len(v.Failures) == 0
	proposed, err := ctx.proposedAllocs(node.ID)
	if err != nil {
		return nil, err
	}
	_, _, used := structs.AllocsFit(node, proposed)
	ask := structs.AllocatedFor(tg).Comparable()
	ask.CpuShares = structs.SatAdd(ask.CpuShares, coresCPU(node, coreAsksOf(tg)))
	v.Exhausted = structs.ExhaustedDimensions(node.Comparable(), used, ask)
	coreProblems, err := explainCores(ctx, node, tg)
	if err != nil {
		return nil, err
	}
	v.Exhausted = append(v.Exhausted, coreProblems...)
	portProblems, err := explainPorts(ctx, node, tg)
	if err != nil {
		return nil, err
	}
	v.Exhausted = append(v.Exhausted, portProblems...)
	v.Fits = len(v.Exhausted) == 0
	if option != nil {
		v.Scores = map[string]float64{"final": option.score}
		for _, sc := range option.scores[:option.nscores] {
			v.Scores[sc.name.String()] = sc.value
		}
	} else if v.Feasible && v.Fits {
		// A stage this file does not know about ruled the node out: report
		// what the stack's own metric says rather than claim it fits.
		addMetricReasons(v, metric)
	}
	if v.Feasible && !v.Fits {
		if v.Preemptions, err = explainPreemption(ctx, node, job, tg); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// explainPreemption lists the allocations whose eviction would make room
// for tg on node, when preemption is enabled for the job's type; nil when it
// is not or no eviction would do.
func explainPreemption(ctx *evalContext, node *structs.Node, job *structs.Job, tg *structs.TaskGroup) ([]string, error) {
	enabled, err := preemptionEnabled(ctx.state, job.Type)
	if err != nil || !enabled {
		return nil, err
	}
	p, err := findPreemption(ctx, node, structs.AllocatedFor(tg), coreAsksOf(tg), job.Priority)
	if err != nil || p == nil {
		return nil, err
	}
	out := make([]string, 0, len(p.allocs))
	for _, a := range p.allocs {
		prio := 0
		if a.Job != nil {
			prio = a.Job.Priority
		}
		out = append(out, fmt.Sprintf("%s (job %s, priority %d)", a.Name, a.JobID, prio))
	}
	return out, nil
}

// allFailures runs every checker on the node and returns every failure:
// all of a checkExplainer's, the one reason of any other checker.
func allFailures(checkers []feasibilityChecker, n *structs.Node, tg *structs.TaskGroup) []string {
	var out []string
	for _, c := range checkers {
		if e, ok := c.(checkExplainer); ok {
			out = append(out, e.explain(n, tg)...)
			continue
		}
		if ok, reason := c.Feasible(n); !ok {
			out = append(out, reason)
		}
	}
	return out
}

// addMetricReasons copies the reasons a Select metric gives into v.
func addMetricReasons(v *structs.NodeVerdict, m *structs.AllocMetric) {
	if m == nil {
		return
	}
	for _, k := range sortedKeys(m.ClassFiltered) {
		v.Failures = append(v.Failures, "class "+k+" filtered")
	}
	for _, k := range sortedKeys(m.ConstraintFiltered) {
		v.Failures = append(v.Failures, k)
	}
	for _, k := range sortedKeys(m.DimensionExhausted) {
		v.Exhausted = append(v.Exhausted, k+": exhausted")
	}
	v.Feasible = len(v.Failures) == 0
	v.Fits = len(v.Exhausted) == 0
	if v.Feasible && v.Fits {
		v.Failures = append(v.Failures, "not ranked by the placement stack")
		v.Feasible = false
	}
}

// explain reports the node's datacenter when it is not one of the job's.
func (c *datacenterChecker) explain(n *structs.Node, _ *structs.TaskGroup) []string {
	if ok, _ := c.Feasible(n); ok {
		return nil
	}
	return []string{fmt.Sprintf("datacenter %q not in the job's datacenters [%s]",
		n.Datacenter, strings.Join(c.datacenters, ", "))}
}

// explain reports every reason the node cannot take work: its status, a
// drain and ineligibility.
func (readyChecker) explain(n *structs.Node, _ *structs.TaskGroup) []string {
	var out []string
	if n.Status != structs.NodeStatusReady {
		out = append(out, fmt.Sprintf("node status is %q, not %q", n.Status, structs.NodeStatusReady))
	}
	if n.Drain {
		out = append(out, "node is draining")
	}
	if n.SchedulingEligibility == structs.NodeSchedulingIneligible {
		out = append(out, "node is ineligible for scheduling")
	}
	return out
}

// explain reports, for every task of the group, a driver the node lacks or
// has unhealthy: `task "web": missing driver "docker"`.
func (c *driverChecker) explain(n *structs.Node, tg *structs.TaskGroup) []string {
	var out []string
	for _, t := range tg.Tasks {
		if ok, reason := driverHealthy(n, t.Driver); !ok {
			out = append(out, fmt.Sprintf("task %q: %s", t.Name, reason))
		}
	}
	return out
}
