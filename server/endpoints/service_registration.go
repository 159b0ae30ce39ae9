package endpoints

import (
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// ServiceRegistration serves the ServiceRegistration.* RPCs: Nomad's
// native service discovery. Clients write (Upsert, DeleteByAllocIDs) with
// their node's secret, for their own live allocations only; operators
// read with read-job and delete with submit-job (DeleteByID also takes the
// secret of the registration's node). Reads are in
// service_registration_read.go.
type ServiceRegistration struct{ d *Deps }

// maxServicesPerUpsert bounds one upsert (a client registers an
// allocation's services at a time).
const maxServicesPerUpsert = 1024

// Upsert registers services of allocations on the calling node: 403
// without the node's secret or for another node's allocation, 400 for a
// bad registration or an allocation that is terminal, unknown or of
// another namespace or job. Nothing is written unless all pass.
func (e *ServiceRegistration) Upsert(args *structs.ServiceRegistrationUpsertRequest, reply *structs.ServiceRegistrationUpsertResponse) error {
	if len(args.Services) == 0 {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "must specify at least one service registration")
	}
	if len(args.Services) > maxServicesPerUpsert {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "at most %d service registrations per request, got %d", maxServicesPerUpsert, len(args.Services))
	}
	st := e.d.State().Snapshot()
	node, err := e.d.callingNode(st, args.AuthToken)
	if err != nil {
		return err
	}
	if node == nil {
		return structs.ErrNodeSecretMismatch
	}
	regs := make([]*structs.ServiceRegistration, 0, len(args.Services))
	for i, in := range args.Services {
		if err := validateRegistration(in); err != nil {
			return structs.NewCodedError(structs.ErrCodeBadRequest, "service registration %d: %v", i, err)
		}
		if err := e.checkAlloc(st, node, in); err != nil {
			return err
		}
		r := *in
		r.Tags = append([]string(nil), in.Tags...)
		regs = append(regs, &r)
	}
	// The entry carries no secret: the raft log is not a place for one.
	index, err := e.apply(structs.ServiceRegistrationUpsertRequestType, &structs.ServiceRegistrationUpsertRequest{Services: regs})
	reply.Index = index
	return err
}

// checkAlloc checks that r's allocation runs on node, is not terminal and
// agrees with r on node, namespace and job.
func (e *ServiceRegistration) checkAlloc(st *state.StateSnapshot, node *structs.Node, r *structs.ServiceRegistration) error {
	if r.NodeID != node.ID {
		return structs.ErrNodeForeignAlloc
	}
	alloc, err := st.AllocByID(nil, r.AllocID)
	if err != nil {
		return err
	}
	if alloc == nil {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "service %q: allocation %q not found", r.ServiceName, r.AllocID)
	}
	if alloc.NodeID != node.ID {
		return structs.ErrNodeForeignAlloc
	}
	if alloc.TerminalStatus() {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "service %q: allocation %q is terminal", r.ServiceName, r.AllocID)
	}
	if alloc.Namespace != r.Namespace || alloc.JobID != r.JobID {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "service %q: allocation %q is of job %q in namespace %q, not %q in %q",
			r.ServiceName, r.AllocID, alloc.JobID, alloc.Namespace, r.JobID, r.Namespace)
	}
	return nil
}

// DeleteByID deletes the registration args.ID of args.Namespace: 404 when
// there is none there. The secret of the registration's node may (a
// client deregistering one service), as may a token with submit-job in
// the namespace (`service delete`).
func (e *ServiceRegistration) DeleteByID(args *structs.ServiceRegistrationDelByIDRequest, reply *structs.ServiceRegistrationDelResponse) error {
	ns := namespaceOf(args.Namespace)
	if args.ID == "" {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "missing service registration ID")
	}
	st := e.d.State().Snapshot()
	node, err := e.d.callingNode(st, args.AuthToken)
	if err != nil {
		return err
	}
	reg, err := st.ServiceRegistrationByID(nil, args.ID)
	if err != nil {
		return err
	}
	switch {
	case node != nil:
		if reg != nil && reg.NodeID != node.ID {
			return structs.ErrNodeForeignAlloc
		}
	default:
		if err := e.d.allowNamespaceOp(args.AuthToken, ns, capSubmitJob); err != nil {
			return err
		}
	}
	if reg == nil || reg.Namespace != ns {
		return structs.NewCodedError(structs.ErrCodeNotFound, "service registration %q not found in namespace %q", args.ID, ns)
	}
	index, err := e.apply(structs.ServiceRegistrationDeleteByIDRequestType, &structs.ServiceRegistrationDelByIDRequest{
		ID: args.ID, WriteRequest: structs.WriteRequest{Namespace: ns}})
	reply.Index = index
	return err
}

// DeleteByAllocIDs deletes every registration of the allocations, with
// the secret of the node they run on (403 for another node's; unknown
// allocations whose registrations are gone too are skipped).
func (e *ServiceRegistration) DeleteByAllocIDs(args *structs.ServiceRegistrationDelByAllocIDsRequest, reply *structs.ServiceRegistrationDelResponse) error {
	if len(args.AllocIDs) == 0 {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "must specify at least one allocation ID")
	}
	st := e.d.State().Snapshot()
	node, err := e.d.callingNode(st, args.AuthToken)
	if err != nil {
		return err
	}
	if node == nil {
		return structs.ErrNodeSecretMismatch
	}
	for _, id := range args.AllocIDs {
		alloc, err := st.AllocByID(nil, id)
		if err != nil {
			return err
		}
		if alloc != nil && alloc.NodeID != node.ID {
			return structs.ErrNodeForeignAlloc
		}
		regs, err := st.ServiceRegistrationsByAllocID(nil, id)
		if err != nil {
			return err
		}
		for _, r := range regs {
			if r.NodeID != node.ID {
				return structs.ErrNodeForeignAlloc
			}
		}
	}
	index, err := e.apply(structs.ServiceRegistrationDeleteByAllocIDsRequestType,
		&structs.ServiceRegistrationDelByAllocIDsRequest{AllocIDs: args.AllocIDs})
	reply.Index = index
	return err
}

// callingNode returns the node whose secret secret is, or nil when it is
// no node's (an ACL token, or nothing).
func (d *Deps) callingNode(st *state.StateSnapshot, secret string) (*structs.Node, error) {
	if secret == "" {
		return nil, nil
	}
	return st.NodeBySecretID(nil, secret)
}

// apply commits one registration change through raft; the state store's
// refusal comes back as the error.
func (e *ServiceRegistration) apply(t structs.MessageType, msg any) (uint64, error) {
	index, resp, err := e.d.Apply(t, msg)
	if err != nil {
		return 0, err
	}
	if err, ok := resp.(error); ok {
		return 0, err
	}
	return index, nil
}
