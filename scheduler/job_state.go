package scheduler

import (
	"fmt"

	"github.com/nomadish/nomadish/structs"
)

// jobState is what one scheduling round of the generic and system
// schedulers reads of its job, all from one State.
type jobState struct {
	job     *structs.Job // nil when the job was purged
	allocs  []*structs.Allocation
	tainted map[string]*structs.Node // nodes of allocs that are down, draining or disconnected
	index   uint64                   // the state's latest index: the plan's SnapshotIndex
}

// loadJobState reads the job of namespace/jobID, its allocations, the state
// index and the tainted nodes those allocations are on.
func loadJobState(state State, namespace, jobID string) (jobState, error) {
	var js jobState
	var err error
	if js.job, err = state.JobByID(namespace, jobID); err != nil {
		return js, fmt.Errorf("looking up job %q: %w", jobID, err)
	}
	if js.allocs, err = state.AllocsByJob(namespace, jobID); err != nil {
		return js, fmt.Errorf("looking up allocs of job %q: %w", jobID, err)
	}
	if js.index, err = state.LatestIndex(); err != nil {
		return js, fmt.Errorf("reading state index: %w", err)
	}
	if js.tainted, err = taintedNodes(state, js.allocs); err != nil {
		return js, err
	}
	return js, nil
}
