package server

import (
	"fmt"
	"path"

	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

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
