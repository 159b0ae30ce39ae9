package endpoints

import (
	"fmt"

	"github.com/nomadish/nomadish/acl"
	"github.com/nomadish/nomadish/structs"
)

// Stop stops one allocation and has it replaced (alloc stop): in one raft
// entry it marks the allocation's DesiredTransition Migrate and creates an
// "alloc-stop" evaluation for its job; the reconciler then stops the
// allocation and places a replacement, as for a drained node's allocs.
// The entry is an AllocUpdateDesiredTransitionRequest, the one the
// drainer commits: same meaning, so no new message type (Nomad's
// Alloc.Stop does the same). Errors: missing ID 400, unknown alloc 404.
func (e *Alloc) Stop(args *structs.AllocStopRequest, reply *structs.AllocStopResponse) error {
	if args.AllocID == "" {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "missing allocation ID")
	}
	st := e.d.State()
	a, err := st.AllocByID(nil, args.AllocID)
	if err != nil {
		return fmt.Errorf("looking up alloc %q: %w", args.AllocID, err)
	}
	if a == nil {
		return structs.NewCodedError(structs.ErrCodeNotFound, "unknown allocation %q", args.AllocID)
	}
	if err := e.d.allowNamespaceOp(args.AuthToken, a.Namespace, acl.NamespaceCapabilityAllocLifecycle); err != nil {
		return err
	}
	job, err := st.JobByID(nil, a.Namespace, a.JobID)
	if err != nil {
		return fmt.Errorf("looking up job %q: %w", a.JobID, err)
	}
	if job == nil {
		job = a.Job // the job was purged: evaluate with the alloc's copy
	}
	now := e.d.Clock.Now()
	eval := &structs.Evaluation{
		ID: structs.GenerateUUID(), Namespace: a.Namespace, JobID: a.JobID,
		TriggeredBy: structs.EvalTriggerAllocStop, Status: structs.EvalStatusPending,
		Priority: structs.DefaultJobPriority, Type: structs.JobTypeService,
		CreateTime: now.UnixNano(), ModifyTime: now.UnixNano(),
	}
	if job != nil {
		eval.Priority, eval.Type, eval.JobModifyIndex = job.Priority, job.Type, job.JobModifyIndex
	}
	migrate := true
	req := &structs.AllocUpdateDesiredTransitionRequest{
		Allocs: map[string]*structs.DesiredTransition{a.ID: {Migrate: &migrate}},
		Evals:  []*structs.Evaluation{eval},
	}
	index, _, err := e.d.Apply(structs.AllocUpdateDesiredTransitionRequestType, req)
	if err != nil {
		return err
	}
	reply.EvalID, reply.Index = eval.ID, index
	return nil
}
