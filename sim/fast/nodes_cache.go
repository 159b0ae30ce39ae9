package fast

import (
	"slices"

	"github.com/nomadish/nomadish/scheduler"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// snapView is the scheduler's State: a state-store snapshot (every read
// goes to it) except Nodes, which returns the node list the simulator
// read from the store when the nodes last changed. Nodes change only
// through the simulator (registration, failure, return), so the list is
// the snapshot's; reading it once per change instead of once per eval
// saves a 5,000-node memdb scan per scheduler pass.
//
// It is also the scheduler's ReadyCacher: the ready nodes per pool and
// datacenters are derived from the node list once per node change
// (nodesAt), not once per eval.
type snapView struct {
	state.ReadView
	nodes   []*structs.Node
	nodesAt uint64
	ready   *scheduler.ReadyCache
}

func (v snapView) Nodes() ([]*structs.Node, error) { return slices.Clone(v.nodes), nil }

func (v snapView) ReadyCache() (*scheduler.ReadyCache, uint64) { return v.ready, v.nodesAt }

// snapshot is the current state as the scheduler reads it.
func (s *Sim) snapshot() (snapView, error) {
	view := s.store.Snapshot().ReadView()
	if s.nodesCache == nil || s.nodesCacheAt != s.nodesChanged {
		nodes, err := view.Nodes()
		if err != nil {
			return snapView{}, err
		}
		s.nodesCache, s.nodesCacheAt = nodes, s.nodesChanged
	}
	return snapView{ReadView: view, nodes: s.nodesCache, nodesAt: s.nodesCacheAt, ready: &s.readyCache}, nil
}
