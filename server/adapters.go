package server

import (
	"context"
	"errors"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/server/planapply"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// snapshotView adapts a state snapshot to scheduler.State and
// planapply.Snapshot (reads without watch sets).
type snapshotView struct{ snap *state.StateSnapshot }

var (
	_ scheduler.State    = snapshotView{}
	_ planapply.Snapshot = snapshotView{}
)

func (v snapshotView) Nodes() ([]*structs.Node, error)           { return v.snap.Nodes(nil) }
func (v snapshotView) NodeByID(id string) (*structs.Node, error) { return v.snap.NodeByID(nil, id) }
func (v snapshotView) JobByID(ns, id string) (*structs.Job, error) {
	return v.snap.JobByID(nil, ns, id)
}
func (v snapshotView) AllocsByJob(ns, jobID string) ([]*structs.Allocation, error) {
	return v.snap.AllocsByJob(nil, ns, jobID)
}
func (v snapshotView) AllocsByNode(nodeID string) ([]*structs.Allocation, error) {
	return v.snap.AllocsByNode(nil, nodeID)
}
func (v snapshotView) LatestIndex() (uint64, error) { return v.snap.LatestIndex(nil) }
func (v snapshotView) LatestDeploymentByJobID(ns, jobID string) (*structs.Deployment, error) {
	return v.snap.LatestDeploymentByJobID(nil, ns, jobID)
}
func (v snapshotView) SchedulerConfig() (*structs.SchedulerConfiguration, error) {
	return v.snap.SchedulerConfig(nil)
}

// planState gives the plan applier the newest committed state.
type planState struct{ s *Server }

func (p planState) Snapshot() (planapply.Snapshot, error) {
	return snapshotView{p.s.State().Snapshot()}, nil
}

// planCommitter commits plan results through raft.
type planCommitter struct{ s *Server }

func (c planCommitter) ApplyPlanResults(req *structs.ApplyPlanResultsRequest) (uint64, error) {
	idx, _, err := c.s.raftApply(structs.ApplyPlanResultsRequestType, req)
	return idx, err
}

// stateWaiter gives workers a snapshot at or past an index.
type stateWaiter struct{ s *Server }

func (w stateWaiter) SnapshotMinIndex(ctx context.Context, index uint64) (scheduler.State, error) {
	for {
		snap, err := w.s.State().SnapshotMinIndex(ctx, index)
		if errors.Is(err, state.ErrAbandoned) {
			continue // restored from a raft snapshot: wait on the new store
		}
		if err != nil {
			return nil, err
		}
		return snapshotView{snap}, nil
	}
}

// evalWriter upserts evals through raft.
type evalWriter struct{ s *Server }

func (w evalWriter) UpsertEvals(evals []*structs.Evaluation) (uint64, error) {
	idx, _, err := w.s.raftApply(structs.EvalUpdateRequestType, &structs.EvalUpdateRequest{Evals: evals})
	return idx, err
}
