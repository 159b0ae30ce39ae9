package state

import "github.com/nomadish/nomadish/structs"

// ReadView reads a snapshot without watch sets: the read-only State the
// scheduler (scheduler.State) and the plan applier (planapply.Snapshot)
// take. The job endpoint's dry runs and the leader's workers share it.
type ReadView struct{ snap *StateSnapshot }

// ReadView returns a view of the snapshot.
func (s *StateSnapshot) ReadView() ReadView { return ReadView{snap: s} }

// Nodes lists every node.
func (v ReadView) Nodes() ([]*structs.Node, error) { return v.snap.Nodes(nil) }

// NodeByID reads one node (nil when absent).
func (v ReadView) NodeByID(id string) (*structs.Node, error) { return v.snap.NodeByID(nil, id) }

// JobByID reads one job (nil when absent).
func (v ReadView) JobByID(ns, id string) (*structs.Job, error) {
	return v.snap.JobByID(nil, ns, id)
}

// AllocsByJob lists a job's allocations.
func (v ReadView) AllocsByJob(ns, jobID string) ([]*structs.Allocation, error) {
	return v.snap.AllocsByJob(nil, ns, jobID)
}

// AllocsByNode lists a node's allocations.
func (v ReadView) AllocsByNode(nodeID string) ([]*structs.Allocation, error) {
	return v.snap.AllocsByNode(nil, nodeID)
}

// LiveAllocsByNode lists a node's non-terminal allocations (the
// node_terminal index: terminal ones are not read at all).
func (v ReadView) LiveAllocsByNode(nodeID string) ([]*structs.Allocation, error) {
	return v.snap.AllocsByNodeTerminal(nil, nodeID, false)
}

// NodeLiveUsage returns the sum of the node's live allocations' comparable
// resources and their number, kept by the store (node_usage.go): the
// scheduler's optional scheduler.NodeUsageState and planapply's fast fit.
func (v ReadView) NodeLiveUsage(nodeID string) (structs.ComparableResources, int, error) {
	return v.snap.NodeLiveUsage(nodeID)
}

// AllocByID reads one allocation (nil when absent).
func (v ReadView) AllocByID(id string) (*structs.Allocation, error) { return v.snap.AllocByID(nil, id) }

// LatestIndex is the snapshot's highest table index.
func (v ReadView) LatestIndex() (uint64, error) { return v.snap.LatestIndex(nil) }

// LatestDeploymentByJobID reads a job's newest deployment (nil when none).
func (v ReadView) LatestDeploymentByJobID(ns, jobID string) (*structs.Deployment, error) {
	return v.snap.LatestDeploymentByJobID(nil, ns, jobID)
}

// SchedulerConfig reads the scheduler configuration.
func (v ReadView) SchedulerConfig() (*structs.SchedulerConfiguration, error) {
	return v.snap.SchedulerConfig(nil)
}

// NodePoolByName reads a node pool (nil when absent); it satisfies the
// scheduler's optional scheduler.NodePoolState.
func (v ReadView) NodePoolByName(name string) (*structs.NodePool, error) {
	return v.snap.NodePoolByName(nil, name)
}
