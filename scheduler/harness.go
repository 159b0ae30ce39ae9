package scheduler

import (
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nomadish/nomadish/scheduler/reconcile"
	"github.com/nomadish/nomadish/structs"
)

// Harness is a Planner that records what a scheduler asks for and commits
// nothing: every plan is reported fully committed, evals are only kept. The
// server's `job plan` endpoint uses it (through DryRun) for a dry run; tests
// and the simulator can use it to look at decisions. Not safe for concurrent use.
type Harness struct {
	Plans          []*structs.Plan
	UpdatedEvals   []*structs.Evaluation
	CreatedEvals   []*structs.Evaluation
	ReblockedEvals []*structs.Evaluation
}

var _ Planner = (*Harness)(nil)

// SubmitPlan records the plan and reports it committed in full.
func (h *Harness) SubmitPlan(plan *structs.Plan) (*structs.PlanResult, State, error) {
	h.Plans = append(h.Plans, plan)
	return &structs.PlanResult{
		NodeUpdate: plan.NodeUpdate, NodeAllocation: plan.NodeAllocation,
		NodePreemptions: plan.NodePreemptions,
	}, nil, nil
}

// UpdateEval records the eval.
func (h *Harness) UpdateEval(eval *structs.Evaluation) error {
	h.UpdatedEvals = append(h.UpdatedEvals, eval)
	return nil
}

// CreateEval records the eval.
func (h *Harness) CreateEval(eval *structs.Evaluation) error {
	h.CreatedEvals = append(h.CreatedEvals, eval)
	return nil
}

// ReblockEval records the eval.
func (h *Harness) ReblockEval(eval *structs.Evaluation) error {
	h.ReblockedEvals = append(h.ReblockedEvals, eval)
	return nil
}

// DryRun runs the scheduler of schedType for eval against state with a
// Harness, committing nothing, and returns the plan it built, the plan
// annotations (place/stop/ignore counts per group, from the reconciler) and
// the failed placements per group. For `job plan`, pass a state in which the
// submitted job replaces the registered one (see WithJob) and an eval for it.
// now is the only clock the run reads. The eval is not modified.
func DryRun(schedType string, state State, eval *structs.Evaluation, now time.Time) (*structs.Plan, *structs.PlanAnnotations, map[string]*structs.AllocMetric, error) {
	if err := supportedType(schedType); err != nil {
		return nil, nil, nil, err
	}
	h := &Harness{}
	cfg := Config{
		Logger: hclog.NewNullLogger(), State: state, Planner: h,
		Now: func() time.Time { return now },
	}
	s := newGenericScheduler(schedType, cfg)
	var proc Scheduler = s
	if isSystemType(schedType) {
		sys := newSystemScheduler(schedType, cfg)
		s, proc = sys.genericScheduler, sys
	}
	ann := &structs.PlanAnnotations{DesiredTGUpdates: map[string]*structs.DesiredUpdates{}}
	s.onReconcile = func(r *reconcile.Result) { ann.DesiredTGUpdates = r.DesiredTGUpdates }
	e := *eval
	if err := proc.Process(&e); err != nil {
		return nil, nil, nil, err
	}
	annotatePreemptions(ann, s.plan)
	return s.plan, ann, s.failed, nil
}

// WithJob returns a State that reads job in place of the registered job with
// the same namespace and ID, and otherwise reads state.
func WithJob(state State, job *structs.Job) State { return jobOverlay{State: state, job: job} }

type jobOverlay struct {
	State
	job *structs.Job
}

func (o jobOverlay) JobByID(namespace, id string) (*structs.Job, error) {
	if o.job != nil && o.job.Namespace == namespace && o.job.ID == id {
		return o.job, nil
	}
	return o.State.JobByID(namespace, id)
}

// NodePoolByName forwards to the wrapped state when it knows node pools
// (NodePoolState), so a dry run places with the pool's scheduler
// configuration as the real run will; nil otherwise.
func (o jobOverlay) NodePoolByName(name string) (*structs.NodePool, error) {
	if ps, ok := o.State.(NodePoolState); ok {
		return ps.NodePoolByName(name)
	}
	return nil, nil
}
