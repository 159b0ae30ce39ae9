package server

import (
	"context"
	"errors"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/server/endpoints"
	"github.com/nomadish/nomadish/server/planapply"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// The leader duties read snapshots through state.ReadView.
var (
	_ scheduler.State    = state.ReadView{}
	_ planapply.Snapshot = state.ReadView{}
)

// planState gives the plan applier the newest committed state.
type planState struct{ state func() *state.StateStore }

func (p planState) Snapshot() (planapply.Snapshot, error) {
	return p.state().Snapshot().ReadView(), nil
}

// planCommitter commits plan results through raft.
type planCommitter struct{ apply endpoints.ApplyFunc }

func (c planCommitter) ApplyPlanResults(req *structs.ApplyPlanResultsRequest) (uint64, error) {
	idx, _, err := c.apply(structs.ApplyPlanResultsRequestType, req)
	return idx, err
}

// stateWaiter gives workers a snapshot at or past an index.
type stateWaiter struct{ state func() *state.StateStore }

func (w stateWaiter) SnapshotMinIndex(ctx context.Context, index uint64) (scheduler.State, error) {
	for {
		snap, err := w.state().SnapshotMinIndex(ctx, index)
		if errors.Is(err, state.ErrAbandoned) {
			continue // restored from a raft snapshot: wait on the new store
		}
		if err != nil {
			return nil, err
		}
		return snap.ReadView(), nil
	}
}

// evalWriter upserts evals through raft.
type evalWriter struct{ apply endpoints.ApplyFunc }

func (w evalWriter) UpsertEvals(evals []*structs.Evaluation) (uint64, error) {
	idx, _, err := w.apply(structs.EvalUpdateRequestType, &structs.EvalUpdateRequest{Evals: evals})
	return idx, err
}
