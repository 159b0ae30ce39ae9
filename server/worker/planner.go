package worker

import (
	"context"
	"fmt"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/structs"
)

var _ scheduler.Planner = (*planner)(nil)

// planner is the scheduler's Planner for one eval, used only from the
// worker goroutine that runs the scheduler.
type planner struct {
	w             *Worker
	ctx           context.Context
	evalID, token string // the delivery being processed
	snapshotIndex uint64 // index of the state the scheduler is planning against
}

// SubmitPlan sends the plan to the plan applier. When part of it was
// rejected it also returns a snapshot at or after the result's RefreshIndex.
// It first checks, by extending it, that the delivery is still outstanding:
// a worker whose delivery timed out must not commit a plan while another
// worker processes the redelivered eval.
func (p *planner) SubmitPlan(plan *structs.Plan) (*structs.PlanResult, scheduler.State, error) {
	if err := p.w.cfg.Broker.OutstandingReset(p.evalID, p.token); err != nil {
		return nil, nil, fmt.Errorf("eval %s no longer outstanding, not submitting its plan: %w", p.evalID, err)
	}
	plan.SnapshotIndex = p.snapshotIndex
	res, err := p.w.cfg.Plans.Submit(p.ctx, plan)
	if err != nil {
		return nil, nil, fmt.Errorf("submitting plan: %w", err)
	}
	if res.RefreshIndex == 0 {
		return res, nil, nil
	}
	state, index, err := p.w.snapshotMinIndex(p.ctx, res.RefreshIndex)
	if err != nil {
		return nil, nil, fmt.Errorf("refreshing state to index %d: %w", res.RefreshIndex, err)
	}
	p.snapshotIndex = index
	return res, state, nil
}

// UpdateEval upserts the eval through raft, stamped with the snapshot index.
func (p *planner) UpdateEval(eval *structs.Evaluation) error {
	return p.upsert(eval, "updating")
}

// CreateEval upserts a new eval through raft, stamped with the snapshot
// index (BlockedEvals uses it to catch capacity changes it missed).
func (p *planner) CreateEval(eval *structs.Evaluation) error {
	return p.upsert(eval, "creating")
}

// ReblockEval upserts the eval with status blocked; the leader's
// state-change subscriber puts it back in the blocked set (or, when
// Config.Blocked is set, the worker does).
func (p *planner) ReblockEval(eval *structs.Evaluation) error {
	eval.Status = structs.EvalStatusBlocked
	if err := p.upsert(eval, "reblocking"); err != nil {
		return err
	}
	if p.w.cfg.Blocked != nil {
		p.w.cfg.Blocked.Block(eval)
	}
	return nil
}

func (p *planner) upsert(eval *structs.Evaluation, action string) error {
	eval.SnapshotIndex = p.snapshotIndex
	if _, err := p.w.cfg.Evals.UpsertEvals([]*structs.Evaluation{eval}); err != nil {
		return fmt.Errorf("%s eval %q: %w", action, eval.ID, err)
	}
	return nil
}
