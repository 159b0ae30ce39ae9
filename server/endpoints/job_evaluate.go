package endpoints

import (
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// Evaluate creates a new evaluation of a registered job through raft, as
// Nomad's Job.Evaluate (`job eval`): triggered by "job-register", at the
// job's priority. Unknown job 404; a periodic or parameterized parent 400
// (its children are evaluated, never it). With EvalOptions.ForceReschedule
// the job's failed allocations not yet replaced are marked
// DesiredTransition.ForceReschedule in the same raft entry, so the
// scheduler replaces them even past their reschedule policy. Needs
// read-job, as Nomad.
func (e *Job) Evaluate(args *structs.JobEvaluateRequest, reply *structs.JobRegisterResponse) error {
	ns := namespaceOf(args.Namespace)
	if err := e.d.allowNamespaceOp(args.AuthToken, ns, capReadJob); err != nil {
		return err
	}
	snap := e.d.State().Snapshot()
	job, err := existingJob(snap, ns, args.JobID)
	if err != nil {
		return err
	}
	if job.IsPeriodic() {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "can't evaluate periodic job")
	}
	if job.IsParameterized() {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "can't evaluate parameterized job")
	}
	ev := newJobEval(job, structs.EvalTriggerJobRegister, e.d.Clock.Now())
	ev.JobModifyIndex = job.JobModifyIndex
	var index uint64
	if args.EvalOptions.ForceReschedule {
		// The failed allocations not yet replaced are marked, in the
		// eval's entry: the scheduler replaces them whatever their policy.
		transitions, err := forceRescheduleTransitions(snap, ns, job.ID)
		if err != nil {
			return err
		}
		index, _, err = e.d.Apply(structs.AllocUpdateDesiredTransitionRequestType,
			&structs.AllocUpdateDesiredTransitionRequest{Allocs: transitions, Evals: []*structs.Evaluation{ev}})
		if err != nil {
			return err
		}
	} else if index, _, err = e.d.Apply(structs.EvalUpdateRequestType, &structs.EvalUpdateRequest{Evals: []*structs.Evaluation{ev}}); err != nil {
		return err
	}
	reply.EvalID, reply.EvalCreateIndex, reply.JobModifyIndex, reply.Index = ev.ID, index, job.JobModifyIndex, index
	return nil
}

// forceRescheduleTransitions marks the job's failed allocations that the
// server still wants running and that have no replacement.
func forceRescheduleTransitions(snap *state.StateSnapshot, ns, jobID string) (map[string]*structs.DesiredTransition, error) {
	allocs, err := snap.AllocsByJob(nil, ns, jobID)
	if err != nil {
		return nil, err
	}
	out := map[string]*structs.DesiredTransition{}
	for _, a := range allocs {
		if a.ClientStatus == structs.AllocClientStatusFailed && a.DesiredStatus == structs.AllocDesiredStatusRun && a.NextAllocation == "" {
			out[a.ID] = &structs.DesiredTransition{ForceReschedule: new(true)}
		}
	}
	return out, nil
}
