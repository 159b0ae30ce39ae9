package endpoints

import (
	"github.com/nomadish/nomadish/structs"
)

// PeriodicForce launches a child of a periodic job now (Nomad's
// Periodic.Force, PUT /v1/job/:id/periodic/force), recording the launch as
// the leader's launcher does. 400 for a job that is not periodic, disabled
// or stopped; 409 when a child launched this second exists. Like Nomad's,
// a forced launch ignores prohibit_overlap. Needs dispatch-job or
// submit-job.
func (e *Job) PeriodicForce(args *structs.PeriodicForceRequest, reply *structs.PeriodicForceResponse) error {
	ns := namespaceOf(args.Namespace)
	// dispatch-job or submit-job, as Nomad's Periodic.Force.
	if err := e.d.allowNamespaceOp(args.AuthToken, ns, capDispatchJob); err != nil {
		if err2 := e.d.allowNamespaceOp(args.AuthToken, ns, capSubmitJob); err2 != nil {
			return err
		}
	}
	snap := e.d.State().Snapshot()
	parent, err := existingJob(snap, ns, args.JobID)
	if err != nil {
		return err
	}
	if !parent.IsPeriodic() {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "Job %q is not periodic", args.JobID)
	}
	if !parent.IsPeriodicActive() {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "Job %q is stopped or its periodic block is disabled", args.JobID)
	}
	now := e.d.Clock.Now()
	req := structs.NewPeriodicLaunch(parent, now, now)
	if c, err := snap.JobByID(nil, ns, req.Child.ID); err != nil {
		return err
	} else if c != nil {
		return structs.NewCodedError(structs.ErrCodeConflict, "job %q was already launched at this second", c.ID)
	}
	req.WriteRequest = args.WriteRequest
	index, _, err := e.d.Apply(structs.PeriodicLaunchRequestType, req)
	if err != nil {
		return err
	}
	reply.EvalID, reply.EvalCreateIndex, reply.Index = req.Eval.ID, index, index
	return nil
}
