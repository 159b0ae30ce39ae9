package endpoints

import (
	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// Workload access, Nomad's implicit policy for a task's workload identity
// (acl.matchingVariablesCapabilitySet in Nomad): a task may read and list
// exactly the variables at nomad/jobs, nomad/jobs/<job>,
// nomad/jobs/<job>/<group> and nomad/jobs/<job>/<group>/<task> in its
// allocation's namespace, where <job> is the parent job of a periodic or
// dispatched child. Here the client asks on the task's behalf with its
// node's secret and names the allocation and task; no ACL token is needed.

// workloadPaths are the paths task of group of jobID may read.
type workloadPaths struct{ job, group, task string }

func (w workloadPaths) allowed(path string) bool {
	base := "nomad/jobs"
	return path == base || path == base+"/"+w.job || path == base+"/"+w.job+"/"+w.group ||
		path == base+"/"+w.job+"/"+w.group+"/"+w.task
}

// workloadAlloc authenticates a workload request: the allocation exists,
// runs on the node whose secret the request carries, is not terminal,
// and holds the task. It returns the allocation and the paths the task
// may read.
func (d *Deps) workloadAlloc(args *structs.VariablesWorkloadRequest) (*structs.Allocation, workloadPaths, error) {
	alloc, jobID, err := d.workloadAllocJob(args)
	if err != nil {
		return nil, workloadPaths{}, err
	}
	return alloc, workloadPaths{job: jobID, group: alloc.TaskGroup, task: args.Task}, nil
}

func (d *Deps) workloadAllocJob(args *structs.VariablesWorkloadRequest) (*structs.Allocation, string, error) {
	st := d.State().Snapshot()
	alloc, err := st.AllocByID(nil, args.AllocID)
	if err != nil {
		return nil, "", err
	}
	if alloc == nil {
		return nil, "", structs.ErrPermissionDenied
	}
	node, err := st.NodeByID(nil, alloc.NodeID)
	if err != nil {
		return nil, "", err
	}
	if err := AuthenticateNode(node, args.AuthToken); err != nil {
		d.Logger.Warn("variables: workload request with a wrong node secret", "alloc", args.AllocID)
		return nil, "", structs.ErrPermissionDenied
	}
	if alloc.TerminalStatus() || alloc.Job == nil {
		return nil, "", structs.ErrPermissionDenied
	}
	tg := alloc.Job.LookupTaskGroup(alloc.TaskGroup)
	found := false
	for _, t := range tgTasks(tg) {
		found = found || t.Name == args.Task
	}
	if !found {
		return nil, "", structs.ErrPermissionDenied
	}
	jobID := alloc.JobID
	if alloc.Job.ParentID != "" {
		jobID = alloc.Job.ParentID
	}
	return alloc, jobID, nil
}

func tgTasks(tg *structs.TaskGroup) []*structs.Task {
	if tg == nil {
		return nil
	}
	return tg.Tasks
}

// WorkloadRead reads a variable for a task (nil when absent; 403 for a
// path outside the task's, another node's or a terminal allocation);
// blocking on the variable's ModifyIndex.
func (e *Variables) WorkloadRead(args *structs.VariablesWorkloadRequest, reply *structs.VariablesWorkloadResponse) error {
	alloc, paths, err := e.d.workloadAlloc(args)
	if err != nil {
		return err
	}
	if !paths.allowed(args.Path) {
		return e.d.denied("alloc "+alloc.ID, alloc.Namespace, "variables read "+args.Path)
	}
	return e.readVar(&args.QueryOptions, &reply.QueryMeta, alloc.Namespace, args.Path, &reply.Data)
}

// WorkloadList lists, with their items, the variables under args.Prefix
// that the task may read (the others are left out, as Nomad's list
// filters by permission); blocking on the variables table.
func (e *Variables) WorkloadList(args *structs.VariablesWorkloadRequest, reply *structs.VariablesWorkloadResponse) error {
	alloc, paths, err := e.d.workloadAlloc(args)
	if err != nil {
		return err
	}
	return e.d.blockingList(&args.QueryOptions, &reply.QueryMeta, []string{state.TableVariables}, func(_ memdb.WatchSet, st *state.StateSnapshot) (uint64, error) {
		vars, err := st.VarsByPrefix(alloc.Namespace, args.Prefix)
		if err != nil {
			return 0, err
		}
		reply.List = reply.List[:0]
		for _, v := range vars {
			if !paths.allowed(v.Path) {
				continue
			}
			dv, err := e.d.decryptVar(v)
			if err != nil {
				return 0, err
			}
			hideLockID(dv, "")
			reply.List = append(reply.List, dv)
		}
		return st.Index(state.TableVariables)
	})
}
