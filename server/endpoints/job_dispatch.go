package endpoints

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// Dispatch launches a child of a parameterized job with a payload and meta
// (Nomad's Job.Dispatch). The parent must be parameterized and running;
// the payload and meta must satisfy its parameterized block (400 naming
// the key otherwise, nothing written). With an idempotency token, a
// non-terminal child dispatched with the same token is returned instead of
// a new one.
func (e *Job) Dispatch(args *structs.JobDispatchRequest, reply *structs.JobDispatchResponse) error {
	ns := namespaceOf(args.Namespace)
	if err := e.d.allowNamespaceOp(args.AuthToken, ns, capDispatchJob); err != nil {
		return err
	}
	snap := e.d.State().Snapshot()
	parent, err := existingJob(snap, ns, args.JobID)
	if err != nil {
		return err
	}
	if !parent.IsParameterized() {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "Specified job %q is not a parameterized job", args.JobID)
	}
	if parent.Stop {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "Specified job %q is stopped", args.JobID)
	}
	if err := structs.CheckDispatch(parent, args.Payload, args.Meta); err != nil {
		return err
	}
	if args.IdempotencyToken != "" {
		children, err := snap.JobChildren(nil, ns, parent.ID)
		if err != nil {
			return err
		}
		for _, c := range children {
			if c.DispatchIdempotencyToken == args.IdempotencyToken && c.Status != structs.JobStatusDead {
				reply.DispatchedJobID, reply.JobCreateIndex, reply.Index = c.ID, c.CreateIndex, c.ModifyIndex
				return nil
			}
		}
	}
	now := e.d.Clock.Now()
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	child := structs.DispatchedChild(parent, args.Payload, args.Meta, args.IdempotencyToken, now, hex.EncodeToString(b[:]))
	child.SubmitTime = now.UnixNano()
	eval := structs.NewJobEval(child, structs.EvalTriggerJobDispatch, now)
	if child.IsPeriodic() {
		eval = nil // a periodic parameterized job dispatches a periodic parent (as Nomad)
	}
	req := &structs.JobRegisterRequest{Job: child, Eval: eval, WriteRequest: args.WriteRequest}
	index, _, err := e.d.Apply(structs.JobRegisterRequestType, req)
	if err != nil {
		return err
	}
	reply.DispatchedJobID = child.ID
	if eval != nil {
		reply.EvalID = eval.ID
	}
	reply.EvalCreateIndex, reply.JobCreateIndex, reply.Index = index, index, index
	return nil
}

// addChildrenSummary fills sum.Children for a periodic or parameterized
// parent (Nomad's JobSummary.Children).
func addChildrenSummary(st *state.StateSnapshot, job *structs.Job, sum *structs.JobSummary) error {
	if !job.IsParent() || sum == nil {
		return nil
	}
	children, err := st.JobChildren(nil, job.Namespace, job.ID)
	if err != nil {
		return err
	}
	sum.Children = &structs.JobChildrenSummary{}
	for _, c := range children {
		sum.Children.Count(c.Status)
	}
	return nil
}
