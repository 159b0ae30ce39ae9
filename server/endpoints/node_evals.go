package endpoints

import (
	"fmt"
	"path"
	"time"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// createNodeEvals is CreateNodeEvals over d, stamped with d's clock.
func (d *Deps) createNodeEvals(nodeID string, nodeIndex uint64) ([]string, uint64, error) {
	return CreateNodeEvals(d.State(), d.Apply, d.Clock.Now(), nodeID, nodeIndex)
}

// CreateNodeEvals creates a node-update eval (created at now) for each job
// with allocations on the node and each system or sysbatch job that
// targets it, in one raft entry; it returns their IDs and the entry's
// index (none and 0 when no job concerns the node). Node.Register,
// Node.UpdateStatus, Node.UpdateEligibility and the leader's heartbeat
// expiry call it.
func CreateNodeEvals(store *state.StateStore, apply ApplyFunc, now time.Time, nodeID string, nodeIndex uint64) ([]string, uint64, error) {
	snap := store.Snapshot()
	allocs, err := snap.AllocsByNode(nil, nodeID)
	if err != nil {
		return nil, 0, err
	}
	seen := map[structs.NamespacedID]bool{}
	var evals []*structs.Evaluation
	var ids []string
	for _, a := range allocs {
		key := structs.NamespacedID{Namespace: a.Namespace, ID: a.JobID}
		if seen[key] {
			continue
		}
		seen[key] = true
		job, err := snap.JobByID(nil, a.Namespace, a.JobID)
		if err != nil {
			return nil, 0, err
		}
		if job == nil {
			continue
		}
		ev := newJobEval(job, structs.EvalTriggerNodeUpdate, now)
		ev.NodeID, ev.NodeModifyIndex, ev.JobModifyIndex = nodeID, nodeIndex, job.JobModifyIndex
		evals = append(evals, ev)
		ids = append(ids, ev.ID)
	}
	sysJobs, err := systemJobsForNode(snap, nodeID, seen)
	if err != nil {
		return nil, 0, err
	}
	for _, job := range sysJobs {
		ev := newJobEval(job, structs.EvalTriggerNodeUpdate, now)
		ev.NodeID, ev.NodeModifyIndex, ev.JobModifyIndex = nodeID, nodeIndex, job.JobModifyIndex
		evals = append(evals, ev)
		ids = append(ids, ev.ID)
	}
	if len(evals) == 0 {
		return nil, 0, nil
	}
	index, _, err := apply(structs.EvalUpdateRequestType, &structs.EvalUpdateRequest{Evals: evals})
	if err != nil {
		return nil, 0, err
	}
	return ids, index, nil
}

// systemJobsForNode returns the system and sysbatch jobs that may run on the
// node (not stopped; the node's datacenter and pool among the job's) and are
// not in skip: each gets a node-update eval when the node registers, becomes
// ready or changes eligibility, so that the system scheduler places it there
// (or stops it). A missing node has none.
func systemJobsForNode(snap *state.StateSnapshot, nodeID string, skip map[structs.NamespacedID]bool) ([]*structs.Job, error) {
	node, err := snap.NodeByID(nil, nodeID)
	if err != nil || node == nil {
		return nil, err
	}
	jobs, err := snap.Jobs(nil, "*")
	if err != nil {
		return nil, fmt.Errorf("listing system jobs for node %q: %w", nodeID, err)
	}
	var out []*structs.Job
	for _, j := range jobs {
		if j.Type != structs.JobTypeSystem && j.Type != structs.JobTypeSysBatch {
			continue
		}
		if j.Stopped() || skip[j.NamespacedID()] || !jobTargetsNode(j, node) {
			continue
		}
		out = append(out, j)
	}
	return out, nil
}

// jobTargetsNode reports whether the node is in one of the job's
// datacenters ("*" and globs allowed) and in its node pool ("all" for any).
func jobTargetsNode(j *structs.Job, n *structs.Node) bool {
	if j.NodePool != "" && j.NodePool != "all" && j.NodePool != n.NodePool {
		return false
	}
	for _, dc := range j.Datacenters {
		if ok, err := path.Match(dc, n.Datacenter); dc == n.Datacenter || (err == nil && ok) {
			return true
		}
	}
	return false
}
