package scheduler

import (
	"fmt"

	"github.com/nomadish/nomadish/scheduler/reconcile"
	"github.com/nomadish/nomadish/structs"
)

// systemScheduler is the system and sysbatch scheduler: one allocation of
// each group on every feasible node (reconcile.System decides where), each
// placement checked against its one node through the generic stack, so the
// same feasibility checkers and fit check apply. It reuses the generic
// scheduler's per-eval state, plan submission and allocation building.
// One value processes one eval at a time, from the caller's goroutine.
type systemScheduler struct {
	*genericScheduler
}

func newSystemScheduler(schedType string, cfg Config) *systemScheduler {
	return &systemScheduler{genericScheduler: newGenericScheduler(schedType, cfg)}
}

// Process reconciles the eval's job against every node, submits the plan
// (retrying against fresh state when the plan applier rejects part of it,
// up to maxPlanAttempts) and records the outcome like the generic
// scheduler: UpdateEval complete with FailedTGAllocs and QueuedAllocations.
// A placement that failed for lack of resources on a feasible node also
// leaves a blocked eval (CreateEval, or ReblockEval for an eval from the
// blocked set), so the job is placed there when capacity frees up; Nomad's
// system scheduler creates none and waits for the next node or job event.
// Nodes ruled out by feasibility are skipped: they count in the metrics
// but are neither queued nor failed.
func (s *systemScheduler) Process(eval *structs.Evaluation) error {
	s.eval = eval
	log := s.logger.With("eval_id", eval.ID, "job_id", eval.JobID)
	if finished, err := retryPlan(eval, log, s.attemptSystem, s.failTooManyAttempts); finished || err != nil {
		return err
	}
	if len(s.failed) == 0 {
		return s.planner.UpdateEval(s.outcome(structs.EvalStatusComplete, ""))
	}
	if eval.Status == structs.EvalStatusBlocked {
		log.Debug("placements still failing; reblocking", "failed_groups", len(s.failed))
		return s.planner.ReblockEval(s.outcome(structs.EvalStatusBlocked, eval.StatusDescription))
	}
	blocked := eval.CreateBlockedEval(s.now())
	if err := s.planner.CreateEval(blocked); err != nil {
		return fmt.Errorf("creating blocked eval for eval %q: %w", eval.ID, err)
	}
	e := s.outcome(structs.EvalStatusComplete, "")
	e.BlockedEval = blocked.ID
	return s.planner.UpdateEval(e)
}

// attemptSystem runs one reconcile-place-submit round. done is false when
// the plan applier rejected part of the plan and s.state now holds fresh
// state.
func (s *systemScheduler) attemptSystem() (done bool, err error) {
	js, err := loadJobState(s.state, s.eval.Namespace, s.eval.JobID)
	if err != nil {
		return false, err
	}
	s.job = js.job
	allocs, tainted, index := js.allocs, js.tainted, js.index
	nodes, err := s.state.Nodes()
	if err != nil {
		return false, fmt.Errorf("listing nodes: %w", err)
	}
	in := reconcile.SystemInput{Job: s.job, Allocs: allocs, TaintedNodes: tainted}
	var available map[string]int
	if !s.job.Stopped() {
		in.Targets, in.Kept, available = systemNodes(nodes, s.job)
	}
	fitter := newInPlaceFitter(s.state, s.eval, s.job)
	in.InPlaceFits = fitter.fits
	res := reconcile.System(in)
	if fitter.err != nil {
		return false, fitter.err
	}
	if s.onReconcile != nil {
		s.onReconcile(&reconcile.Result{Stop: res.Stop, Ignore: res.Ignore, InPlace: res.InPlace, DesiredTGUpdates: res.DesiredTGUpdates})
	}
	s.plan = structs.NewPlan(s.eval, s.job)
	s.plan.SnapshotIndex = index
	for _, st := range res.Stop {
		s.plan.AppendStoppedAlloc(st.Alloc, st.Description, st.ClientStatus)
	}
	s.applyDeployment(&reconcile.Result{InPlace: res.InPlace}) // no deployment: the in-place updates
	s.failed, s.queued = nil, map[string]int{}
	if !s.job.Stopped() {
		for _, tg := range s.job.TaskGroups {
			s.queued[tg.Name] = 0
		}
	}
	if err := s.placeOnNodes(res.Place, len(in.Targets), available); err != nil {
		return false, err
	}
	if s.plan.IsNoOp() {
		return true, nil
	}
	return s.submit()
}

// placeOnNodes runs each placement through the stack restricted to its
// node. A node the checkers rule out is skipped; a node without room is a
// failed placement. The metric of a failed group sums every node evaluated
// for it in this attempt (its filters and exhausted dimensions), with
// CoalescedFailures the failures after the first.
func (s *systemScheduler) placeOnNodes(places []reconcile.SystemPlacement, targets int, available map[string]int) error {
	if len(places) == 0 {
		return nil
	}
	ctx := newEvalContext(s.state, s.plan)
	stack := newGenericStack(ctx, s.job, nil, available, false, s.now)
	sums := map[string]*structs.AllocMetric{}
	now := s.now()
	one := make([]*structs.Node, 1)
	for _, p := range places {
		name := p.TaskGroup.Name
		one[0] = p.Node
		stack.setNodes(one)
		option, metric, err := stack.Select(p.TaskGroup)
		if err != nil {
			return err
		}
		sum := sums[name]
		if sum == nil {
			sum = &structs.AllocMetric{NodesInPool: targets, NodesAvailable: metric.NodesAvailable}
			sums[name] = sum
		}
		addMetric(sum, metric)
		if option == nil && metric.NodesFiltered > 0 {
			continue // infeasible node: not this job's
		}
		s.queued[name]++
		if option != nil {
			s.plan.AppendAlloc(withCores(withPorts(s.newAlloc(p.Placement, option.node, metric, now), option.ports), option.cores))
			continue
		}
		if placed, err := s.placePreempting(stack, p.Placement, metric, now); err != nil || placed {
			if err != nil {
				return err
			}
			continue // placed by preemption (preempt.go)
		}
		if s.failed == nil {
			s.failed = map[string]*structs.AllocMetric{}
		}
		if s.failed[name] != nil {
			sum.CoalescedFailures++
			continue
		}
		s.failed[name] = sum
	}
	return nil
}

// setNodes makes the stack's source the given nodes (the system scheduler
// selects on one node at a time). The stack keeps the slice.
func (s *genericStack) setNodes(nodes []*structs.Node) {
	s.source.nodes = nodes
	s.source.offset, s.source.seen, s.source.slotted = 0, 0, false
}

// addMetric adds the counts of one Select's metric to a group's sum.
func addMetric(sum, m *structs.AllocMetric) {
	sum.NodesEvaluated += m.NodesEvaluated
	sum.NodesFiltered += m.NodesFiltered
	sum.NodesExhausted += m.NodesExhausted
	sum.AllocationTime += m.AllocationTime
	sum.ClassFiltered = addCounts(sum.ClassFiltered, m.ClassFiltered)
	sum.ConstraintFiltered = addCounts(sum.ConstraintFiltered, m.ConstraintFiltered)
	sum.ClassExhausted = addCounts(sum.ClassExhausted, m.ClassExhausted)
	sum.DimensionExhausted = addCounts(sum.DimensionExhausted, m.DimensionExhausted)
}

func addCounts(dst, src map[string]int) map[string]int {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = make(map[string]int, len(src))
	}
	for k, v := range src {
		dst[k] += v
	}
	return dst
}

// systemNodes sorts the nodes for a system job: targets (ready, in the job's
// datacenters and node pool; sorted by ID), kept (the others there that are
// not down or disconnected) and ready nodes per datacenter.
func systemNodes(nodes []*structs.Node, job *structs.Job) (targets []*structs.Node, kept map[string]*structs.Node, available map[string]int) {
	kept = map[string]*structs.Node{}
	available = map[string]int{}
	for _, n := range nodes {
		if !matchDatacenter(job.Datacenters, n.Datacenter) || !systemPoolMatch(job.NodePool, n.NodePool) {
			continue
		}
		switch {
		case n.Ready():
			targets = append(targets, n)
			available[n.Datacenter]++
		case !nodeTainted(n):
			kept[n.ID] = n
		}
	}
	return targets, kept, available
}

// systemPoolMatch reports whether a job in pool jobPool runs on a node in
// nodePool: the job's pool "all" (or none) takes every node.
func systemPoolMatch(jobPool, nodePool string) bool {
	return jobPool == "" || jobPool == "all" || jobPool == nodePool
}
