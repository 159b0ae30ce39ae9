package fast

import (
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/structs"
)

var errAbandoned = errors.New("fast: simulation ended with the plan in flight")

// worker is one simulated scheduler worker. Its scheduler runs as a
// coroutine (iter.Pull): the event loop resumes it and it runs until it
// submits a plan or finishes, so exactly one piece of code runs at a
// time and the order of everything is the event loop's. A worker that
// submits a plan stops there until the applier's result event, while the
// other workers go on planning against their own, older, snapshots: the
// optimistic concurrency of Nomad's workers.
type worker struct {
	id   int
	eval *structs.Evaluation
	busy bool

	next func() (*structs.Plan, bool)
	stop func()
	err  error

	// Set by the event loop before resuming after a plan.
	result *structs.PlanResult
	// refreshed: the last plan was partly rejected (the next is a retry).
	refreshed bool
}

// simPlanner is the scheduler's Planner for one worker's eval.
type simPlanner struct {
	s     *Sim
	w     *worker
	yield func(*structs.Plan) bool
	index uint64 // the snapshot's index
}

func (p *simPlanner) SubmitPlan(plan *structs.Plan) (*structs.PlanResult, scheduler.State, error) {
	s := p.s
	plan.SnapshotIndex = p.index
	s.renameAllocs(plan)
	if p.w.refreshed {
		s.retries++
	}
	if !p.yield(plan) {
		return nil, nil, errAbandoned
	}
	res := p.w.result
	p.w.refreshed = res.RefreshIndex != 0
	if res.RefreshIndex == 0 {
		return res, nil, nil
	}
	s.conflicts++
	p.index = s.index
	snap, err := s.snapshot()
	if err != nil {
		return nil, nil, err
	}
	return res, snap, nil
}

func (p *simPlanner) UpdateEval(e *structs.Evaluation) error {
	p.s.evalOutcome(e)
	return p.upsert(e)
}

func (p *simPlanner) CreateEval(e *structs.Evaluation) error {
	p.s.renameEval(e)
	return p.upsert(e)
}

func (p *simPlanner) ReblockEval(e *structs.Evaluation) error {
	e.Status = structs.EvalStatusBlocked
	p.s.evalOutcome(e)
	return p.upsert(e)
}

func (p *simPlanner) upsert(e *structs.Evaluation) error {
	e.SnapshotIndex = p.index
	e.ModifyTime = p.s.clock().UnixNano()
	if err := p.s.store.UpsertEvals(p.s.nextIndex(), []*structs.Evaluation{e}); err != nil {
		return fmt.Errorf("upserting eval %s: %w", e.ID, err)
	}
	p.s.takeReleased()
	return nil
}

// start gives the worker an eval: a snapshot now, and the scheduler run
// as a coroutine until its first plan.
func (s *Sim) start(w *worker, e *structs.Evaluation) {
	w.busy, w.eval, w.err, w.refreshed = true, e, nil, false
	s.inflight[jobKey{e.Namespace, e.JobID}] = true
	s.evals++
	if e.TriggeredBy == structs.EvalTriggerJobRegister {
		if j, ok := s.jobs[e.JobID]; ok && !j.dequeued {
			j.dequeued = true
			s.queueDelays = append(s.queueDelays, s.now-j.arrival)
		}
	}
	p := &simPlanner{s: s, w: w, index: s.index}
	snap, err := s.snapshot()
	w.next, w.stop = iter.Pull(func(yield func(*structs.Plan) bool) {
		p.yield = yield
		if err != nil {
			w.err = err
			return
		}
		sched, err := scheduler.New(e.Type, scheduler.Config{State: snap, Planner: p, Now: s.clock,
			PreferenceScoreLimit: s.cfg.PreferenceScoreLimit})
		if err != nil {
			w.err = err
			return
		}
		w.err = sched.Process(e.Copy())
	})
	s.resume(w, s.cfg.Costs.Eval)
}

// resume runs the worker's scheduler until its next plan, which reaches
// the applier after the modelled scheduling time (base, plus the cost of
// the plan's placements and of the nodes they evaluated), or until it
// finishes (its eval write then takes Costs.Apply).
func (s *Sim) resume(w *worker, base time.Duration) {
	plan, ok := w.next()
	if !ok {
		w.stop()
		s.schedule(s.now+base+s.cfg.Costs.Apply, &event{kind: evWorkerDone, w: w})
		return
	}
	placed, evaluated := 0, 0
	for _, as := range plan.NodeAllocation {
		for _, a := range as {
			placed++
			if a.Metrics != nil {
				evaluated += a.Metrics.NodesEvaluated
			}
		}
	}
	c := s.cfg.Costs
	cost := base + time.Duration(placed)*c.Placement + time.Duration(evaluated)*c.Node
	s.schedule(s.now+cost, &event{kind: evPlan, w: w, plan: plan})
}

// applyPlan is the plan applier: one plan at a time, in simulated-time
// order, each taking Costs.Apply.
func (s *Sim) applyPlan(ev *event) error {
	if s.applierFree > s.now {
		s.schedule(s.applierFree, ev)
		return nil
	}
	res, err := s.applier.ApplyNow(ev.plan)
	if err != nil {
		return fmt.Errorf("applying plan of eval %s: %w", ev.plan.EvalID, err)
	}
	s.takeReleased()
	s.applierFree = s.now + s.cfg.Costs.Apply
	ev.w.result = res
	s.schedule(s.applierFree, &event{kind: evResume, w: ev.w})
	return nil
}

// workerDone acks the worker's eval and frees it.
func (s *Sim) workerDone(w *worker) error {
	if w.err != nil {
		return fmt.Errorf("scheduling eval %s of job %s: %w", w.eval.ID, w.eval.JobID, w.err)
	}
	s.ack(w.eval)
	w.busy, w.eval, w.next, w.stop = false, nil, nil, nil
	return nil
}
