package fast

import (
	"fmt"
	"math"
	"time"

	"github.com/nomadish/nomadish/server/endpoints"
	"github.com/nomadish/nomadish/structs"
)

// scheduleFailure schedules the next node failure: a Poisson process of
// NodeFailures per node per day over the cluster.
func (s *Sim) scheduleFailure() {
	if s.cfg.NodeFailures <= 0 || len(s.nodeList) == 0 {
		return
	}
	perSec := s.cfg.NodeFailures * float64(len(s.nodeList)) / 86400
	gap := time.Duration(s.rng.ExpFloat64() / perSec * float64(time.Second))
	if gap > 0 && gap < time.Duration(math.MaxInt64/2) {
		s.schedule(s.now+gap, &event{kind: evNodeFail})
	}
}

// failNode takes a random ready node down (its heartbeat TTL expired), with
// a node-update eval for each job on it, as the leader's heartbeat expiry.
func (s *Sim) failNode() error {
	defer s.scheduleFailure()
	n := s.nodeList[s.rng.IntN(len(s.nodeList))]
	if !n.ready {
		return nil
	}
	idx := s.nextIndex()
	if err := s.store.UpdateNodeStatus(idx, n.id, structs.NodeStatusDown, s.clock().UnixNano()); err != nil {
		return err
	}
	n.ready = false
	s.nodesChanged++
	s.evictions += len(n.live)
	s.nodeFailures++
	if _, _, err := endpoints.CreateNodeEvals(s.store, s.applyEvals, s.clock(), n.id, idx); err != nil {
		return fmt.Errorf("creating node-update evals for node %s: %w", n.id, err)
	}
	s.schedule(s.now+s.cfg.NodeDowntime, &event{kind: evNodeReturn, node: n.id})
	return nil
}

// returnNode brings a failed node back ready.
func (s *Sim) returnNode(id string) error {
	idx := s.nextIndex()
	if err := s.store.UpdateNodeStatus(idx, id, structs.NodeStatusReady, s.clock().UnixNano()); err != nil {
		return err
	}
	s.nodes[id].ready = true
	s.nodesChanged++
	_, _, err := endpoints.CreateNodeEvals(s.store, s.applyEvals, s.clock(), id, idx)
	return err
}

// applyEvals is the raft apply the endpoints' eval creation calls.
func (s *Sim) applyEvals(t structs.MessageType, msg any) (uint64, any, error) {
	req, ok := msg.(*structs.EvalUpdateRequest)
	if t != structs.EvalUpdateRequestType || !ok {
		return 0, nil, fmt.Errorf("fast: unexpected raft message %d", t)
	}
	for _, e := range req.Evals {
		s.renameEval(e)
	}
	idx := s.nextIndex()
	return idx, nil, s.store.UpsertEvals(idx, req.Evals)
}
