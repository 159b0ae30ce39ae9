package endpoints

import (
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/acl"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// NodePool serves the NodePool.* RPCs.
type NodePool struct{ d *Deps }

// UpsertNodePools creates or updates pools: 400 for an invalid or built-in
// one (nothing written).
func (e *NodePool) UpsertNodePools(args *structs.NodePoolUpsertRequest, reply *structs.GenericResponse) error {
	if len(args.NodePools) == 0 {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "must specify at least one node pool")
	}
	names := make([]string, 0, len(args.NodePools))
	for _, p := range args.NodePools {
		if p != nil {
			names = append(names, p.Name)
		}
	}
	if err := e.d.allowNodePoolOp(args.AuthToken, acl.NodePoolCapabilityWrite, names...); err != nil {
		return err
	}
	for _, p := range args.NodePools {
		if err := p.Validate(); err != nil {
			return structs.NewCodedError(structs.ErrCodeBadRequest, "%v", err)
		}
		if structs.IsBuiltinNodePool(p.Name) {
			return structs.NewCodedError(structs.ErrCodeBadRequest, "modifying node pool %q is not allowed", p.Name)
		}
	}
	index, _, err := e.d.Apply(structs.NodePoolUpsertRequestType, args)
	if err != nil {
		return err
	}
	reply.Index = index
	return nil
}

// DeleteNodePools deletes pools: 400 for a built-in pool or one with nodes
// or non-terminal jobs, 404 for an unknown one (the state store checks,
// and nothing is deleted then).
func (e *NodePool) DeleteNodePools(args *structs.NodePoolDeleteRequest, reply *structs.GenericResponse) error {
	if len(args.Names) == 0 {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "must specify at least one node pool to delete")
	}
	if err := e.d.allowNodePoolOp(args.AuthToken, acl.NodePoolCapabilityDelete, args.Names...); err != nil {
		return err
	}
	for _, name := range args.Names {
		if structs.IsBuiltinNodePool(name) {
			return structs.NewCodedError(structs.ErrCodeBadRequest, "deleting node pool %q is not allowed", name)
		}
	}
	index, _, err := e.d.Apply(structs.NodePoolDeleteRequestType, args)
	if err != nil {
		return err
	}
	reply.Index = index
	return nil
}

// List lists pools (the built-in ones included) whose name starts with
// args.Prefix; blocking.
func (e *NodePool) List(args *structs.NodePoolListRequest, reply *structs.NodePoolListResponse) error {
	visible, err := e.d.nodePoolVisible(args.AuthToken)
	if err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableNodePools}, func(_ memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		all, err := st.NodePools()
		if err != nil {
			return 0, err
		}
		reply.NodePools = make([]*structs.NodePool, 0, len(all))
		for _, p := range all {
			if strings.HasPrefix(p.Name, args.Prefix) && visible(p.Name) {
				reply.NodePools = append(reply.NodePools, p.Copy())
			}
		}
		return st.Index(state.TableNodePools)
	})
}

// GetNodePool reads one pool (nil when absent); blocking.
func (e *NodePool) GetNodePool(args *structs.NodePoolSpecificRequest, reply *structs.SingleNodePoolResponse) error {
	if err := e.d.allowNodePoolOp(args.AuthToken, acl.NodePoolCapabilityRead, args.Name); err != nil {
		return err
	}
	return e.d.blockingRPC(&args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		p, err := st.NodePoolByName(ws, args.Name)
		if err != nil {
			return 0, err
		}
		reply.NodePool = p.Copy()
		if p != nil && p.ModifyIndex > 0 {
			return p.ModifyIndex, nil
		}
		return st.Index(state.TableNodePools)
	})
}

// ListJobs lists the jobs in a pool (all namespaces with "*"; for "all",
// the jobs in "all"); 404 for an unknown pool; blocking.
func (e *NodePool) ListJobs(args *structs.NodePoolSpecificRequest, reply *structs.NodePoolJobsResponse) error {
	ns := namespaceOf(args.Namespace)
	if err := e.d.allowNodePoolOp(args.AuthToken, acl.NodePoolCapabilityRead, args.Name); err != nil {
		return err
	}
	keep, err := e.d.namespaceFilter(args.AuthToken, ns, capListJobs)
	if err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableJobs, state.TableAllocs, state.TableNodePools}, func(_ memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		if err := poolExists(st, args.Name); err != nil {
			return 0, err
		}
		stubs, err := jobStubs(st, ns, "")
		if err != nil {
			return 0, err
		}
		stubs = filterJobStubs(stubs, keep)
		reply.Jobs = make([]*structs.JobListStub, 0, len(stubs))
		for _, j := range stubs {
			if j.NodePool == args.Name {
				reply.Jobs = append(reply.Jobs, j)
			}
		}
		return tableIndex(st, state.TableJobs, state.TableAllocs, state.TableNodePools)
	})
}

// ListNodes lists the nodes in a pool ("all": every node); 404 for an
// unknown pool; blocking.
func (e *NodePool) ListNodes(args *structs.NodePoolSpecificRequest, reply *structs.NodePoolNodesResponse) error {
	if err := e.d.allowNodePoolOp(args.AuthToken, acl.NodePoolCapabilityRead, args.Name); err != nil {
		return err
	}
	if err := e.d.allowLevel(args.AuthToken, "node read", (*acl.ACL).AllowNodeRead); err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableNodes, state.TableNodePools}, func(_ memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		if err := poolExists(st, args.Name); err != nil {
			return 0, err
		}
		nodes, err := st.Nodes(nil)
		if err != nil {
			return 0, err
		}
		reply.Nodes = make([]*structs.NodeListStub, 0, len(nodes))
		for _, n := range nodes {
			if args.Name == structs.NodePoolAll || structs.NodePoolOf(n) == args.Name {
				reply.Nodes = append(reply.Nodes, n.Stub())
			}
		}
		return tableIndex(st, state.TableNodes, state.TableNodePools)
	})
}

func poolExists(st *state.StateSnapshot, name string) error {
	p, err := st.NodePoolByName(nil, name)
	if err != nil {
		return err
	}
	if p == nil {
		return structs.NewCodedError(structs.ErrCodeNotFound, "node pool %q not found", name)
	}
	return nil
}
