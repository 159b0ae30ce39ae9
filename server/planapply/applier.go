package planapply

import (
	"container/heap"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	metrics "github.com/hashicorp/go-metrics"
	"github.com/nomadish/nomadish/structs"
)

// The plan metrics, Nomad's names (milliseconds, wall time: latencies, not
// decisions, so not the server's clock): the wait of a submitter, the fit
// check, and a plan's whole application including its raft commit.
var (
	metricSubmit   = []string{"nomad", "plan", "submit"}
	metricEvaluate = []string{"nomad", "plan", "evaluate"}
	metricApply    = []string{"nomad", "plan", "apply"}
)

// Applier queues plans and applies them one at a time.
type Applier struct {
	state  StateSource
	commit Committer
	logger hclog.Logger
	now    func() time.Time
	wake   chan struct{} // capacity 1: a token when a plan was queued

	// mu guards queue and seq. Submit pushes, Run pops.
	mu    sync.Mutex
	queue planQueue
	seq   uint64
}

// New returns an Applier; call Run on the leader to start applying.
func New(cfg Config) *Applier {
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Applier{
		state: cfg.State, commit: cfg.Commit, logger: cfg.Logger.Named("plan_apply"),
		now: cfg.Now, wake: make(chan struct{}, 1),
	}
}

// Submit queues the plan and waits for its result or for ctx to end (while
// no Run is going, that is until ctx ends: plans wait for the next Run). A
// plan whose ctx ended before Run took it is dropped unapplied; one already
// being applied may still commit (the caller's retry sees it in state).
// The plan must not be modified after Submit. The result's maps share the
// plan's alloc slices.
func (a *Applier) Submit(ctx context.Context, plan *structs.Plan) (*structs.PlanResult, error) {
	defer metrics.MeasureSince(metricSubmit, time.Now())
	p := &pending{ctx: ctx, plan: plan, done: make(chan outcome, 1)}
	a.mu.Lock()
	a.seq++
	p.seq = a.seq
	heap.Push(&a.queue, p)
	a.mu.Unlock()
	select {
	case a.wake <- struct{}{}:
	default:
	}
	select {
	case o := <-p.done:
		return o.res, o.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Run applies queued plans, highest priority first, until ctx ends (on
// leadership loss); plans still queued then get ErrStopped. Run on the
// leader, from one goroutine. Plans are checked one at a time, each against
// a snapshot with every earlier result in it: the result being committed
// is laid over the snapshot (overlay) so the next plan's fit check runs
// while the previous raft entry commits, as Nomad's plan applier does; at
// most one commit is in flight, and the next is dispatched only once it
// has been applied. This is what makes over-commit impossible.
func (a *Applier) Run(ctx context.Context) {
	var prev *inflight
	defer func() {
		prev.wait()
		a.failQueued()
	}()
	for {
		p := a.next()
		if p == nil {
			select {
			case <-a.wake:
				continue
			case <-ctx.Done():
				return
			}
		}
		if ctx.Err() != nil {
			p.finish(nil, ErrStopped)
			return
		}
		if err := p.ctx.Err(); err != nil {
			p.finish(nil, err)
			continue
		}
		prev = a.applyAsync(p, prev)
	}
}

// inflight is a result whose raft commit is under way.
type inflight struct {
	req   *structs.ApplyPlanResultsRequest // nil: nothing was committed
	done  chan struct{}                    // closed once committed (or failed)
	index uint64                           // the commit's index, after done; 0 on failure
}

// wait blocks until the commit ended (nil: nothing in flight).
func (f *inflight) wait() {
	if f != nil {
		<-f.done
	}
}

// pendingReq is the request still being committed, if any.
func (f *inflight) pendingReq() *structs.ApplyPlanResultsRequest {
	if f == nil {
		return nil
	}
	select {
	case <-f.done:
		return nil // applied: the next snapshot holds it
	default:
		return f.req
	}
}

// applyAsync checks p against a fresh snapshot with prev's result laid
// over it, waits for prev's commit, and starts p's own commit on another
// goroutine, which finishes p. It returns p's commit.
func (a *Applier) applyAsync(p *pending, prev *inflight) *inflight {
	start := time.Now()
	res, req, err := a.check(p.plan, prev.pendingReq())
	prev.wait()
	if err != nil {
		p.finish(nil, err)
		return nil
	}
	if res.RefreshIndex != 0 && prev != nil {
		// A rejected node's retry must see the previous result too.
		res.RefreshIndex = max(res.RefreshIndex, prev.index)
	}
	if req == nil {
		metrics.MeasureSince(metricApply, start)
		a.logger.Debug("plan applied", append(p.plan.Fields(), res.Fields()...)...)
		p.finish(res, nil)
		return nil
	}
	f := &inflight{req: req, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		err := a.commitResult(p.plan, res, req)
		if err == nil {
			f.index = res.AllocIndex
		}
		metrics.MeasureSince(metricApply, start)
		if err != nil {
			p.finish(nil, err)
			return
		}
		a.logger.Debug("plan applied", append(p.plan.Fields(), res.Fields()...)...)
		p.finish(res, nil)
	}()
	return f
}

// QueueDepth is the number of plans waiting to be applied (the leader
// samples it as nomad.nomad.plan.queue_depth).
func (a *Applier) QueueDepth() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.queue.Len()
}

func (a *Applier) next() *pending {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.queue.Len() == 0 {
		return nil
	}
	return heap.Pop(&a.queue).(*pending)
}

func (a *Applier) failQueued() {
	for p := a.next(); p != nil; p = a.next() {
		p.finish(nil, ErrStopped)
	}
}

// apply checks the plan against a fresh snapshot and commits what fits.
func (a *Applier) apply(plan *structs.Plan) (*structs.PlanResult, error) {
	defer metrics.MeasureSince(metricApply, time.Now())
	res, req, err := a.check(plan, nil)
	if err != nil {
		return nil, err
	}
	if req != nil {
		if err := a.commitResult(plan, res, req); err != nil {
			return nil, err
		}
	}
	a.logger.Debug("plan applied", append(plan.Fields(), res.Fields()...)...)
	return res, nil
}

// check evaluates the plan against a fresh snapshot with pending (a result
// being committed, nil for none) laid over it. It returns the result and
// the raft request for its committed part (nil when there is none), with
// UpdatedAt and the preemption evals set.
func (a *Applier) check(plan *structs.Plan, pending *structs.ApplyPlanResultsRequest) (*structs.PlanResult, *structs.ApplyPlanResultsRequest, error) {
	snap, err := a.state.Snapshot()
	if err != nil {
		return nil, nil, fmt.Errorf("taking a state snapshot: %w", err)
	}
	start := time.Now()
	res, req, rejected, err := evaluatePlan(newOverlay(snap, pending), plan)
	metrics.MeasureSince(metricEvaluate, start)
	if err != nil {
		return nil, nil, fmt.Errorf("evaluating plan of eval %s: %w", plan.EvalID, err)
	}
	for _, r := range rejected {
		a.logger.Debug("plan rejected for node", "eval_id", plan.EvalID, "node_id", r.node, "reason", r.reason)
	}
	if req != nil {
		req.UpdatedAt = a.now().UnixNano()
		// Jobs that lose allocations get an eval to place them again.
		req.Evals = append(req.Evals, structs.PreemptionEvals(req.AllocsPreempted, req.UpdatedAt)...)
	}
	return res, req, nil
}

// commitResult commits req through raft and sets res.AllocIndex.
func (a *Applier) commitResult(plan *structs.Plan, res *structs.PlanResult, req *structs.ApplyPlanResultsRequest) error {
	index, err := a.commit.ApplyPlanResults(req)
	if err != nil {
		return fmt.Errorf("committing plan of eval %s: %w", plan.EvalID, err)
	}
	res.AllocIndex = index
	return nil
}

// ApplyNow applies one plan at once on the calling goroutine: the same fit
// check against a fresh snapshot and the same commit as Run's, without the
// queue. It is for a caller that owns the order of plans itself, such as
// the simulator's event loop (sim/fast); it must not be used while Run is
// applying plans, or the two would commit against each other's snapshots.
func (a *Applier) ApplyNow(plan *structs.Plan) (*structs.PlanResult, error) {
	return a.apply(plan)
}
