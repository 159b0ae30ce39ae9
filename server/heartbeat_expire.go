package server

import (
	"time"

	"github.com/nomadish/nomadish/server/endpoints"
	"github.com/nomadish/nomadish/server/state"
	"github.com/nomadish/nomadish/structs"
)

// expiredStatus is the pure rule for a node whose heartbeat timer fired:
// a node not yet disconnected whose live allocations have a disconnect
// window (window > 0: the longest lost_after among their groups) becomes
// disconnected for that window; otherwise (no window, or the window of a
// disconnected node has passed) it is down.
func expiredStatus(current string, window time.Duration) string {
	if window > 0 && current != structs.NodeStatusDisconnected && current != structs.NodeStatusDown {
		return structs.NodeStatusDisconnected
	}
	return structs.NodeStatusDown
}

// disconnectWindow is the longest disconnect window (TaskGroup.LostAfter)
// among the groups of the node's live allocations; 0 when none has one.
func disconnectWindow(snap *state.StateSnapshot, nodeID string) (time.Duration, error) {
	allocs, err := snap.AllocsByNode(nil, nodeID)
	if err != nil {
		return 0, err
	}
	var window time.Duration
	for _, a := range allocs {
		if a.TerminalStatus() || a.Job == nil {
			continue
		}
		if tg := a.Job.LookupTaskGroup(a.TaskGroup); tg != nil {
			window = max(window, tg.LostAfter())
		}
	}
	return window, nil
}

// invalidateHeartbeat runs (from the heartbeat clock's goroutine) when a
// node missed its TTL plus grace, or when a disconnected node's window
// ended: the node becomes disconnected (its allocations with a disconnect
// window turn unknown, and its timer is re-armed for the window) or down
// (its allocations are lost), and node-update evals let the schedulers
// react.
func (s *Server) invalidateHeartbeat(nodeID string) {
	snap := s.State().Snapshot()
	node, err := snap.NodeByID(nil, nodeID)
	if err != nil || node == nil {
		s.logger.Error("node missed its heartbeat TTL but cannot be read", "node", nodeID, "error", err)
		return
	}
	window, err := disconnectWindow(snap, nodeID)
	if err != nil {
		s.logger.Error("reading allocs of node that missed its heartbeat TTL", "node", nodeID, "error", err)
		return
	}
	status := expiredStatus(node.Status, window)
	s.logger.Warn("node missed its heartbeat TTL", "node", nodeID, "status", status, "disconnect_window", window)
	req := &structs.NodeUpdateStatusRequest{NodeID: nodeID, Status: status, UpdatedAt: s.cfg.Clock.Now().UnixNano()}
	index, _, err := s.raftApply(structs.NodeUpdateStatusRequestType, req)
	if err != nil {
		s.logger.Error("updating status of node that missed its heartbeat TTL", "node", nodeID, "error", err)
		return
	}
	if status == structs.NodeStatusDisconnected {
		s.heartbeats.Arm(nodeID, window)
	}
	if _, _, err := endpoints.CreateNodeEvals(s.State(), s.raftApply, s.cfg.Clock.Now(), nodeID, index); err != nil {
		s.logger.Error("creating evals for node that missed its heartbeat TTL", "node", nodeID, "error", err)
	}
}
