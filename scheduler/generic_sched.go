package scheduler

import (
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nomadish/nomadish/scheduler/reconcile"
	"github.com/nomadish/nomadish/structs"
)

// genericScheduler is the service and batch scheduler. One value processes
// one eval at a time, from the caller's goroutine.
type genericScheduler struct {
	batch   bool
	logger  hclog.Logger
	state   State
	planner Planner
	now     func() time.Time
	// preferenceLimit is Config.PreferenceScoreLimit.
	preferenceLimit int
	// uncached runs the stack without its per-eval caches by node position
	// (node_slots.go, feasible_cache.go): tests check that the caches change
	// no plan (export_test.go).
	uncached bool
	ids      *idSource // allocation IDs (ids.go)
	// onReconcile, when set, sees every reconcile result (DryRun annotations).
	onReconcile func(*reconcile.Result)

	// Per-eval state, reset by Process and by each attempt.
	eval   *structs.Evaluation
	job    *structs.Job
	plan   *structs.Plan
	failed map[string]*structs.AllocMetric // FailedTGAllocs
	queued map[string]int                  // QueuedAllocations
	desc   string                          // StatusDescription of a complete eval
	// deployment is the one new allocs join (generic_deploy.go), or nil;
	// inplace holds the IDs of the allocs the plan updates in place.
	deployment *structs.Deployment
	inplace    map[string]bool
	// elig is the class eligibility of the last placeAll, for the blocked eval.
	elig *classEligibility
}

func newGenericScheduler(schedType string, cfg Config) *genericScheduler {
	return &genericScheduler{
		batch: schedType == structs.JobTypeBatch, logger: cfg.Logger.Named(schedType + "_sched"),
		state: cfg.State, planner: cfg.Planner, now: cfg.Now, preferenceLimit: cfg.PreferenceScoreLimit,
		ids: newIDSource(),
	}
}

// Process reconciles the eval's job, submits the plan (retrying against
// fresh state when the plan applier rejects part of it, up to
// maxPlanAttempts), then records the outcome: UpdateEval complete with
// FailedTGAllocs and QueuedAllocations, plus a blocked eval (CreateEval, or
// ReblockEval for an eval from the blocked set) when placements failed. After
// too many attempts the eval is updated as failed. Errors returned are state
// or planner failures; the caller nacks the eval.
func (s *genericScheduler) Process(eval *structs.Evaluation) error {
	s.eval = eval
	log := s.logger.With("eval_id", eval.ID, "job_id", eval.JobID)
	if finished, err := retryPlan(eval, log, s.attempt, s.failTooManyAttempts); finished || err != nil {
		return err
	}
	if len(s.failed) > 0 {
		if eval.Status == structs.EvalStatusBlocked {
			log.Debug("placements still failing; reblocking", "failed_groups", len(s.failed))
			return s.planner.ReblockEval(s.outcome(structs.EvalStatusBlocked, eval.StatusDescription))
		}
		blocked := eval.CreateBlockedEval(s.now())
		s.elig.fill(blocked)
		if err := s.planner.CreateEval(blocked); err != nil {
			return fmt.Errorf("creating blocked eval for eval %q: %w", eval.ID, err)
		}
		e := s.outcome(structs.EvalStatusComplete, s.desc)
		e.BlockedEval = blocked.ID
		return s.planner.UpdateEval(e)
	}
	return s.planner.UpdateEval(s.outcome(structs.EvalStatusComplete, s.desc))
}

// outcome returns a copy of the eval with the status and results set.
func (s *genericScheduler) outcome(status, desc string) *structs.Evaluation {
	e := *s.eval
	e.Status = status
	e.StatusDescription = desc
	e.FailedTGAllocs = s.failed
	e.QueuedAllocations = s.queued
	e.ModifyTime = s.now().UnixNano()
	return &e
}

// attempt runs one reconcile-place-submit round. done is false when the
// plan applier rejected part of the plan and s.state now holds fresh state.
func (s *genericScheduler) attempt() (done bool, err error) {
	ns, jobID := s.eval.Namespace, s.eval.JobID
	js, err := loadJobState(s.state, ns, jobID)
	if err != nil {
		return false, err
	}
	s.job = js.job
	allocs, tainted, index := js.allocs, js.tainted, js.index
	deployment, err := latestDeployment(s.state, ns, jobID)
	if err != nil {
		return false, err
	}
	fitter := newInPlaceFitter(s.state, s.eval, s.job)
	res := reconcile.Reconcile(reconcile.Input{Job: s.job, Allocs: allocs, TaintedNodes: tainted, Now: s.now(), EvalID: s.eval.ID,
		Deployment: deployment, InPlaceFits: fitter.fits})
	if fitter.err != nil {
		return false, fitter.err
	}
	s.deployment = res.Deployment
	if s.onReconcile != nil {
		s.onReconcile(&res)
	}
	s.plan = structs.NewPlan(s.eval, s.job)
	s.plan.SnapshotIndex = index
	for _, st := range res.Stop {
		s.plan.AppendStoppedAlloc(st.Alloc, st.Description, st.ClientStatus)
	}
	for _, a := range res.Disconnecting {
		s.plan.AppendUnknownAlloc(a)
	}
	if err := s.createDisconnectFollowup(res.DisconnectExpiry); err != nil {
		return false, err
	}
	s.applyDeployment(&res)
	s.desc = notRescheduledDesc(res.NotRescheduled)
	if err := s.createFollowups(res.Followups); err != nil {
		return false, err
	}
	s.failed, s.queued = nil, map[string]int{}
	if !s.job.Stopped() {
		for _, tg := range s.job.TaskGroups {
			s.queued[tg.Name] = 0
		}
	}
	if err := s.placeAll(res.Place, index); err != nil {
		return false, err
	}
	if s.plan.IsNoOp() {
		return true, nil
	}
	return s.submit()
}

// submit hands the plan to the planner and counts what was committed.
func (s *genericScheduler) submit() (bool, error) {
	result, newState, err := s.planner.SubmitPlan(s.plan)
	if err != nil {
		return false, fmt.Errorf("submitting plan: %w", err)
	}
	if result == nil {
		return false, fmt.Errorf("submitting plan: planner returned no result")
	}
	s.logger.Debug("plan submitted", append(s.plan.Fields(), result.Fields()...)...)
	for _, allocs := range result.NodeAllocation {
		for _, a := range allocs {
			if a.TerminalStatus() || s.inplace[a.ID] {
				continue // an in-place update (of a failed alloc's FollowupEvalID, or to a new job version)
			}
			if s.queued[a.TaskGroup] > 0 {
				s.queued[a.TaskGroup]--
			}
		}
	}
	if result.RefreshIndex == 0 {
		return true, nil
	}
	if newState == nil {
		return false, fmt.Errorf("plan partly rejected (refresh index %d) but the planner gave no new state", result.RefreshIndex)
	}
	s.state = newState
	return false, nil
}

// placeAll selects a node for each placement and adds the allocations to the
// plan. A group that fails once is not tried again in this attempt: its later
// placements are coalesced into the first failure's metric.
func (s *genericScheduler) placeAll(places []reconcile.Placement, index uint64) error {
	if len(places) == 0 {
		return nil
	}
	nodes, err := s.state.Nodes()
	if err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	ready, available := readyNodes(s.state, nodes, s.job.NodePool, s.job.Datacenters) // sorted by ID
	shuffleSorted(ready, s.eval.ID, index)
	ctx := newEvalContext(s.state, s.plan)
	stack := newGenericStack(ctx, s.job, ready, available, s.batch, s.now)
	stack.prefs.preferenceLimit = s.preferenceLimit
	stack.readyInDCs()
	stack.source.slotted = !s.uncached
	s.elig = &stack.constraints.elig
	now := s.now()
	for _, p := range places {
		tg := p.TaskGroup
		s.queued[tg.Name]++
		if m := s.failed[tg.Name]; m != nil {
			m.CoalescedFailures++
			continue
		}
		var opts *selectOptions
		if p.Reschedule {
			opts = &selectOptions{PenaltyNodes: penaltyNodes(p.Previous)}
		}
		prefer := preferredNode(p.Previous, tg, ready) // stack_sticky.go
		option, metric, err := stack.selectPreferring(tg, opts, prefer)
		if err != nil {
			return err
		}
		if option == nil {
			if placed, err := s.placePreempting(stack, p, metric, now); err != nil || placed {
				if err != nil {
					return err
				}
				continue
			}
			if s.failed == nil {
				s.failed = map[string]*structs.AllocMetric{}
			}
			s.failed[tg.Name] = metric
			continue
		}
		s.plan.AppendAlloc(withCores(withPorts(s.newAlloc(p, option.node, metric, now), option.ports), option.cores))
	}
	return nil
}

func (s *genericScheduler) newAlloc(p reconcile.Placement, node *structs.Node, metric *structs.AllocMetric, now time.Time) *structs.Allocation {
	a := &structs.Allocation{
		ID: s.ids.uuid(), Namespace: s.job.Namespace, EvalID: s.eval.ID, Name: p.Name,
		NodeID: node.ID, NodeName: node.Name, JobID: s.job.ID, Job: s.job, TaskGroup: p.TaskGroup.Name,
		AllocatedResources: structs.AllocatedFor(p.TaskGroup), Metrics: metric,
		DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusPending,
		CreateTime: now.UnixNano(), ModifyTime: now.UnixNano(),
	}
	if p.Previous != nil {
		a.PreviousAllocation = p.Previous.ID
	}
	s.markDeployment(a, p)
	if p.Reschedule {
		a.RescheduleTracker = p.Previous.NextRescheduleTracker(reconcile.ReschedulePolicy(s.job, p.TaskGroup), now)
	}
	return a
}

// taintedNodes returns the nodes of allocs that can no longer run them
// (down, disconnected or gone), keyed by ID; a gone node maps to nil.
func taintedNodes(state State, allocs []*structs.Allocation) (map[string]*structs.Node, error) {
	out := map[string]*structs.Node{}
	seen := map[string]bool{}
	for _, a := range allocs {
		if seen[a.NodeID] || a.TerminalStatus() {
			continue
		}
		seen[a.NodeID] = true
		n, err := state.NodeByID(a.NodeID)
		if err != nil {
			return nil, fmt.Errorf("looking up node %q: %w", a.NodeID, err)
		}
		if nodeTainted(n) {
			out[a.NodeID] = n
		}
	}
	return out, nil
}

// retryPlan runs attempt until its plan commits whole, at most
// maxPlanAttempts times (the plan applier hands back what did not fit and
// attempt retries against fresher state). After the last attempt it calls
// fail and reports the eval finished. The generic and system schedulers
// share it.
func retryPlan(eval *structs.Evaluation, log hclog.Logger, attempt func() (bool, error), fail func(attempts int) error) (finished bool, err error) {
	for n := 1; ; n++ {
		done, err := attempt()
		if err != nil {
			return true, fmt.Errorf("processing eval %q: %w", eval.ID, err)
		}
		if done {
			return false, nil
		}
		log.Debug("plan partly rejected; retrying with fresh state", "attempt", n)
		if n == maxPlanAttempts {
			return true, fail(n)
		}
	}
}

// failTooManyAttempts marks the eval failed after maxPlanAttempts.
func (s *genericScheduler) failTooManyAttempts(attempts int) error {
	e := s.outcome(structs.EvalStatusFailed, fmt.Sprintf("maximum attempts reached (%d)", maxPlanAttempts))
	e.PlanAttempts = attempts
	return s.planner.UpdateEval(e)
}
