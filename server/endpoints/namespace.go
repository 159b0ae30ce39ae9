package endpoints

import (
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// Namespace serves the Namespace.* RPCs.
type Namespace struct{ d *Deps }

// UpsertNamespaces creates or updates namespaces: 400 for an invalid one
// (nothing written).
func (e *Namespace) UpsertNamespaces(args *structs.NamespaceUpsertRequest, reply *structs.GenericResponse) error {
	if err := e.d.allowManagement(args.AuthToken, "namespace write"); err != nil {
		return err
	}
	if len(args.Namespaces) == 0 {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "must specify at least one namespace")
	}
	for _, ns := range args.Namespaces {
		if err := ns.Validate(); err != nil {
			return structs.NewCodedError(structs.ErrCodeBadRequest, "%v", err)
		}
	}
	index, _, err := e.d.Apply(structs.NamespaceUpsertRequestType, args)
	if err != nil {
		return err
	}
	reply.Index = index
	return nil
}

// DeleteNamespaces deletes namespaces: 400 for "default" or a namespace
// with non-terminal jobs (named in the message), 404 for an unknown one;
// nothing is deleted then. The checks run here, so a refusal writes no
// raft entry, and again in the state store (the entry is authoritative).
func (e *Namespace) DeleteNamespaces(args *structs.NamespaceDeleteRequest, reply *structs.GenericResponse) error {
	if err := e.d.allowManagement(args.AuthToken, "namespace write"); err != nil {
		return err
	}
	if len(args.Namespaces) == 0 {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "must specify at least one namespace to delete")
	}
	snap := e.d.State().Snapshot()
	for _, name := range args.Namespaces {
		if name == structs.DefaultNamespaceName {
			return structs.NewCodedError(structs.ErrCodeBadRequest, "namespace %q can not be deleted", name)
		}
		ns, err := snap.NamespaceByName(nil, name)
		if err != nil {
			return err
		}
		if ns == nil {
			return structs.NewCodedError(structs.ErrCodeNotFound, "namespace %q not found", name)
		}
		if jobs := snap.NamespaceLiveJobs(name); len(jobs) > 0 {
			return structs.NewCodedError(structs.ErrCodeBadRequest,
				"namespace %q contains at least one non-terminal job: %s", name, strings.Join(jobs, ", "))
		}
	}
	index, _, err := e.d.Apply(structs.NamespaceDeleteRequestType, args)
	if err != nil {
		return err
	}
	reply.Index = index
	return nil
}

// ListNamespaces lists namespaces ("default" included) whose name starts
// with args.Prefix, sorted by name; blocking.
func (e *Namespace) ListNamespaces(args *structs.NamespaceListRequest, reply *structs.NamespaceListResponse) error {
	visible, err := e.d.namespaceVisible(args.AuthToken)
	if err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableNamespaces}, func(_ memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		all, err := st.Namespaces()
		if err != nil {
			return 0, err
		}
		reply.Namespaces = make([]*structs.Namespace, 0, len(all))
		for _, ns := range all {
			if strings.HasPrefix(ns.Name, args.Prefix) && visible(ns.Name) {
				reply.Namespaces = append(reply.Namespaces, ns.Copy())
			}
		}
		return st.Index(state.TableNamespaces)
	})
}

// GetNamespace reads one namespace (nil when absent); blocking.
func (e *Namespace) GetNamespace(args *structs.NamespaceSpecificRequest, reply *structs.SingleNamespaceResponse) error {
	if err := e.d.allowNamespaceRead(args.AuthToken, args.Name); err != nil {
		return err
	}
	return e.d.blockingRPC(&args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		ns, err := st.NamespaceByName(ws, args.Name)
		if err != nil {
			return 0, err
		}
		reply.Namespace = ns.Copy()
		if ns != nil && ns.ModifyIndex > 0 {
			return ns.ModifyIndex, nil
		}
		return st.Index(state.TableNamespaces)
	})
}

// checkNamespace refuses (400) a job write into a namespace that does not
// exist.
func checkNamespace(st *state.StateSnapshot, job *structs.Job) error {
	ns, err := st.NamespaceByName(nil, job.Namespace)
	if err != nil {
		return err
	}
	if ns == nil {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "namespace %q does not exist", job.Namespace)
	}
	for _, tg := range job.TaskGroups {
		for _, t := range tg.Tasks {
			if !ns.DriverAllowed(t.Driver) {
				return structs.NewCodedError(structs.ErrCodeBadRequest,
					"task %q: driver %q is not allowed in namespace %q", t.Name, t.Driver, ns.Name)
			}
		}
	}
	return nil
}

// checkNodePool refuses (400) a job whose node_pool does not exist.
func checkNodePool(st *state.StateSnapshot, job *structs.Job) error {
	if job.NodePool == "" {
		return nil
	}
	p, err := st.NodePoolByName(nil, job.NodePool)
	if err != nil {
		return err
	}
	if p == nil {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "node pool %q does not exist", job.NodePool)
	}
	return nil
}

// checkJobTenancy runs checkNamespace and checkNodePool (Job.Register
// and Job.Plan).
func checkJobTenancy(st *state.StateSnapshot, job *structs.Job) error {
	if err := checkNamespace(st, job); err != nil {
		return err
	}
	return checkNodePool(st, job)
}
