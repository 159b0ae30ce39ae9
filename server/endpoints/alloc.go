package endpoints

import (
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/acl"
	"github.com/nomadish/nomadish/server/paginate"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// Alloc serves the Alloc.* RPCs.
type Alloc struct{ d *Deps }

// List lists allocations (namespace "*" or empty: all; ID prefix filter);
// blocking.
func (e *Alloc) List(args *structs.AllocListRequest, reply *structs.AllocListResponse) error {
	keep, err := e.d.namespaceFilter(args.AuthToken, listNamespace(args.Namespace), capReadJob)
	if err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableAllocs}, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		allocs, err := st.Allocs(ws)
		if err != nil {
			return 0, err
		}
		reply.Allocations = make([]*structs.AllocListStub, 0, len(allocs))
		for _, a := range allocs {
			if !inNamespace(args.Namespace, a.Namespace) || !strings.HasPrefix(a.ID, args.Prefix) || (keep != nil && !keep(a.Namespace)) {
				continue
			}
			stub := a.Stub()
			if args.Fields != nil && args.Fields.Resources {
				stub.AllocatedResources = a.AllocatedResources
			}
			reply.Allocations = append(reply.Allocations, stub)
		}
		if reply.Allocations, err = pageList(reply.Allocations, paginate.ByCreateIndex, allocKey, &args.QueryOptions, &reply.QueryMeta); err != nil {
			return 0, err
		}
		return st.Index(state.TableAllocs)
	})
}

// inNamespace filters lists: an empty or "*" namespace matches all.
func inNamespace(want, ns string) bool { return want == "" || want == "*" || want == ns }

// GetAlloc reads one allocation (nil when absent); blocking.
func (e *Alloc) GetAlloc(args *structs.AllocSpecificRequest, reply *structs.SingleAllocResponse) error {
	acl, accessor, err := e.d.resolveACL(args.AuthToken)
	if err != nil {
		return err
	}
	return e.d.blockingRPC(&args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		a, err := st.AllocByID(ws, args.AllocID)
		if err != nil {
			return 0, err
		}
		if a != nil && !acl.AllowNamespaceOperation(a.Namespace, capReadJob) {
			return 0, e.d.denied(accessor, a.Namespace, capReadJob)
		}
		reply.Alloc = a
		if a != nil {
			return a.ModifyIndex, nil
		}
		return st.Index(state.TableAllocs)
	})
}

// GetAllocs reads several allocations (absent ones are left out); blocking.
func (e *Alloc) GetAllocs(args *structs.AllocsGetRequest, reply *structs.AllocsGetResponse) error {
	allowed, err := e.d.allocReadFilter(args.AuthToken)
	if err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableAllocs}, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		reply.Allocs = make([]*structs.Allocation, 0, len(args.AllocIDs))
		var index uint64
		for _, id := range args.AllocIDs {
			a, err := st.AllocByID(ws, id)
			if err != nil {
				return 0, err
			}
			if a == nil || !allowed(a.Namespace) {
				continue
			}
			reply.Allocs = append(reply.Allocs, a)
			index = max(index, a.ModifyIndex)
		}
		if index == 0 {
			return st.Index(state.TableAllocs)
		}
		return index, nil
	})
}

// allocReadFilter says which allocations a GetAllocs caller may read by
// ID: a client, authenticated by any registered node's secret, reads any
// (as Nomad's clients do: a replacement waits on its previous allocation
// on another node); any other caller is an ACL token, and allocations in
// namespaces where it lacks read-job are left out (ACLs off: all).
func (d *Deps) allocReadFilter(secret string) (func(ns string) bool, error) {
	n, err := d.State().NodeBySecretID(nil, secret)
	if err != nil {
		return nil, err
	}
	if n != nil {
		return func(string) bool { return true }, nil
	}
	a, _, err := d.resolveACL(secret)
	if err != nil {
		return nil, err
	}
	return func(ns string) bool { return a.AllowNamespaceOperation(ns, acl.NamespaceCapabilityReadJob) }, nil
}
