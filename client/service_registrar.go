package client

import (
	"github.com/nomadish/nomadish/client/allocrunner"
	"github.com/nomadish/nomadish/client/services"
	"github.com/nomadish/nomadish/structs"
)

// serviceRegistrar stores service registrations on the servers through the
// node's RPC, with the node's secret (services.Registrar). The servers
// accept a node's writes for its own allocations only. Safe from any
// goroutine; each call is one RPC (the hook retries).
type serviceRegistrar struct{ c *Client }

var _ services.Registrar = serviceRegistrar{}

func (r serviceRegistrar) write() structs.WriteRequest {
	return structs.WriteRequest{Region: r.c.cfg.Region, AuthToken: r.c.secret()}
}

// Upsert registers (or updates) the registrations.
func (r serviceRegistrar) Upsert(regs []*structs.ServiceRegistration) error {
	args := &structs.ServiceRegistrationUpsertRequest{Services: regs, WriteRequest: r.write()}
	return r.c.rpc.RPC(structs.ServiceRegistrationUpsertRPC, args, &structs.ServiceRegistrationUpsertResponse{})
}

// DeleteByID deletes one registration of namespace.
func (r serviceRegistrar) DeleteByID(namespace, id string) error {
	w := r.write()
	w.Namespace = namespace
	args := &structs.ServiceRegistrationDelByIDRequest{ID: id, WriteRequest: w}
	return r.c.rpc.RPC(structs.ServiceRegistrationDeleteByIDRPC, args, &structs.ServiceRegistrationDelResponse{})
}

// DeleteByAllocIDs deletes every registration of the allocations.
func (r serviceRegistrar) DeleteByAllocIDs(allocIDs []string) error {
	args := &structs.ServiceRegistrationDelByAllocIDsRequest{AllocIDs: allocIDs, WriteRequest: r.write()}
	return r.c.rpc.RPC(structs.ServiceRegistrationDeleteByAllocID, args, &structs.ServiceRegistrationDelResponse{})
}

// newServices is the alloc runners' ServicesFactory: a service hook for an
// allocation whose group or tasks declare services, nil otherwise.
func (c *Client) newServices(a *structs.Allocation, task func(string) allocrunner.TaskControl, onCheck func()) allocrunner.Services {
	if !services.HasServices(a) {
		return nil
	}
	return services.New(services.Config{
		Alloc: a, Registrar: serviceRegistrar{c}, Node: c.Node, OnCheck: onCheck, Logger: c.cfg.Logger,
		Task: func(name string) services.Task {
			if t := task(name); t != nil {
				return t
			}
			return nil
		},
	})
}

// AllocChecks returns the latest result of each check of a local
// allocation, keyed by check ID (agent.AllocChecker). Errors: 404 coded
// for an allocation not on this client.
func (c *Client) AllocChecks(allocID string) (map[string]*structs.CheckQueryResult, error) {
	ar := c.runner(allocID)
	if ar == nil {
		return nil, unknownAlloc(allocID)
	}
	return ar.CheckResults(), nil
}
