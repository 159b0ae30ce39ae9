package endpoints

import (
	"github.com/nomadish/nomadish/structs"
)

// Evaluate creates a new evaluation of a registered job through raft, as
// Nomad's Job.Evaluate (`job eval`): triggered by "job-register", at the
// job's priority. Unknown job 404; a periodic or parameterized parent 400
// (its children are evaluated, never it). Needs read-job, as Nomad.
func (e *Job) Evaluate(args *structs.JobEvaluateRequest, reply *structs.JobRegisterResponse) error {
	ns := namespaceOf(args.Namespace)
	if err := e.d.allowNamespaceOp(args.AuthToken, ns, capReadJob); err != nil {
		return err
	}
	if args.EvalOptions.ForceReschedule {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "force-reschedule is not supported")
	}
	job, err := existingJob(e.d.State().Snapshot(), ns, args.JobID)
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
	index, _, err := e.d.Apply(structs.EvalUpdateRequestType, &structs.EvalUpdateRequest{Evals: []*structs.Evaluation{ev}})
	if err != nil {
		return err
	}
	reply.EvalID, reply.EvalCreateIndex, reply.JobModifyIndex, reply.Index = ev.ID, index, job.JobModifyIndex, index
	return nil
}
