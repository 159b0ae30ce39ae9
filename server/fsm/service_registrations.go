package fsm

import "github.com/nomadish/nomadish/structs"

// applyServiceRegistrationUpsert writes a client's service registrations
// (the endpoint checked the node and its allocations); nil or an error.
func (f *FSM) applyServiceRegistrationUpsert(buf []byte, index uint64) any {
	var req structs.ServiceRegistrationUpsertRequest
	decode(buf, &req, index)
	if err := f.State().UpsertServiceRegistrations(index, req.Services); err != nil {
		return err
	}
	return nil
}

// applyServiceRegistrationDeleteByID deletes one registration of the
// request's namespace; nil, or a 404 coded error when it is gone.
func (f *FSM) applyServiceRegistrationDeleteByID(buf []byte, index uint64) any {
	var req structs.ServiceRegistrationDelByIDRequest
	decode(buf, &req, index)
	if err := f.State().DeleteServiceRegistrationByID(index, req.Namespace, req.ID); err != nil {
		return err
	}
	return nil
}

// applyServiceRegistrationDeleteByAllocIDs deletes every registration of
// the allocations; nil or an error.
func (f *FSM) applyServiceRegistrationDeleteByAllocIDs(buf []byte, index uint64) any {
	var req structs.ServiceRegistrationDelByAllocIDsRequest
	decode(buf, &req, index)
	if err := f.State().DeleteServiceRegistrationsByAllocIDs(index, req.AllocIDs); err != nil {
		return err
	}
	return nil
}
