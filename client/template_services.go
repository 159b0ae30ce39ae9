package client

import (
	"context"
	"fmt"

	"github.com/nomadish/nomadish/client/template"
	"github.com/nomadish/nomadish/structs"
)

// The templates' nomadService and nomadServices read Nomad's native
// service registrations: the client asks the servers with its node's
// secret (ServiceRegistration.GetService and List answer a node's secret),
// in the namespace of the task's allocation. taskVars, the VarReader the
// alloc runners are given (template_vars.go), is the ServiceReader too:
// template.New finds it there, so no other wiring is needed.

var (
	_ template.ServiceReader = taskVars{}
	_ template.ServiceLister = taskVars{}
)

// Service returns the registrations of service name in the allocation's
// namespace, ordered by ID; with waitIndex > 0 it blocks until the
// registrations' index passes waitIndex or ctx ends.
func (v taskVars) Service(ctx context.Context, name string, waitIndex uint64) ([]*template.Service, uint64, error) {
	ns, err := v.namespace()
	if err != nil {
		return nil, 0, err
	}
	for {
		args := &structs.ServiceRegistrationByNameRequest{ServiceName: name, QueryOptions: v.c.serviceQuery(ns, waitIndex)}
		var reply structs.ServiceRegistrationByNameResponse
		if err := v.c.ctxBlockingRPC(ctx, structs.ServiceRegistrationGetServiceRPC, args, &reply); err != nil {
			return nil, 0, err
		}
		if waitIndex == 0 || reply.Index > waitIndex {
			out := make([]*template.Service, 0, len(reply.Services))
			for _, r := range reply.Services {
				out = append(out, templateService(r))
			}
			return out, reply.Index, nil
		}
	}
}

// Services lists the service names of the allocation's namespace with
// their tags, sorted by name; blocking as Service.
func (v taskVars) Services(ctx context.Context, waitIndex uint64) ([]*template.ServiceStub, uint64, error) {
	ns, err := v.namespace()
	if err != nil {
		return nil, 0, err
	}
	for {
		args := &structs.ServiceRegistrationListRequest{QueryOptions: v.c.serviceQuery(ns, waitIndex)}
		var reply structs.ServiceRegistrationListResponse
		if err := v.c.ctxBlockingRPC(ctx, structs.ServiceRegistrationListRPC, args, &reply); err != nil {
			return nil, 0, err
		}
		if waitIndex == 0 || reply.Index > waitIndex {
			var out []*template.ServiceStub
			for _, l := range reply.Services {
				for _, s := range l.Services {
					out = append(out, &template.ServiceStub{Name: s.ServiceName, Tags: s.Tags})
				}
			}
			return out, reply.Index, nil
		}
	}
}

// namespace is the namespace of the task's allocation.
func (v taskVars) namespace() (string, error) {
	ar := v.c.runner(v.allocID)
	if ar == nil {
		return "", fmt.Errorf("client: allocation %q is not running here", v.allocID)
	}
	a := ar.Alloc()
	if a == nil || a.Namespace == "" {
		return structs.DefaultNamespaceName, nil
	}
	return a.Namespace, nil
}

func (c *Client) serviceQuery(ns string, waitIndex uint64) structs.QueryOptions {
	return structs.QueryOptions{Region: c.cfg.Region, Namespace: ns, MinQueryIndex: waitIndex, AuthToken: c.secret()}
}

// ctxBlockingRPC is blockingRPC that also returns when ctx ends (the
// abandoned call finishes in its own goroutine into a reply nobody reads).
func (c *Client) ctxBlockingRPC(ctx context.Context, method string, args, out any) error {
	done := make(chan error, 1)
	go func() { done <- c.blockingRPC(method, args, out) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// templateService maps a registration to the templates' view.
func templateService(r *structs.ServiceRegistration) *template.Service {
	return &template.Service{ID: r.ID, Name: r.ServiceName, Address: r.Address, Port: r.Port, Datacenter: r.Datacenter,
		NodeID: r.NodeID, Node: r.NodeID, AllocID: r.AllocID, JobID: r.JobID, Namespace: r.Namespace,
		Tags: append([]string(nil), r.Tags...)}
}
