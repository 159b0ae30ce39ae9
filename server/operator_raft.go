package server

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/hashicorp/raft"

	"github.com/nomadish/nomadish/server/endpoints"
	"github.com/nomadish/nomadish/server/snapshot"
	"github.com/nomadish/nomadish/structs"
)

// The server is the operator and status endpoints' view of the cluster
// (endpoints.Cluster): raft's configuration, serf's members
// (server/cluster) and snapshots (server/snapshot).
var _ endpoints.Cluster = (*Server)(nil)

// snapshotTimeout bounds a snapshot save's barrier and a restore.
const snapshotTimeout = 2 * time.Minute

// RaftServers lists the servers of the latest raft configuration
// (committed or not), named and with the leader marked, and its index.
func (s *Server) RaftServers() ([]*structs.RaftServer, uint64, error) {
	f := s.cluster.Raft().GetConfiguration()
	if err := f.Error(); err != nil {
		return nil, 0, err
	}
	_, leaderID := s.cluster.Raft().LeaderWithID()
	names := map[string]string{}
	for _, m := range s.cluster.ServerMembers() {
		names[m.ID] = m.Name
	}
	out := make([]*structs.RaftServer, 0, len(f.Configuration().Servers))
	for _, srv := range f.Configuration().Servers {
		out = append(out, &structs.RaftServer{
			ID: string(srv.ID), Node: s.raftNodeName(srv, names), Address: string(srv.Address),
			Leader: srv.ID == leaderID && leaderID != "", Voter: srv.Suffrage == raft.Voter, RaftProtocol: "3",
		})
	}
	return out, f.Index(), nil
}

// raftNodeName names a raft server: by its serf member name (names: raft
// ID -> name) when gossip knows it, else this server by its node name and
// the others by their address's host.
func (s *Server) raftNodeName(srv raft.Server, names map[string]string) string {
	if name := names[string(srv.ID)]; name != "" {
		return name
	}
	if string(srv.ID) == s.cluster.ServerID() {
		return s.cfg.NodeName
	}
	if host, _, err := net.SplitHostPort(string(srv.Address)); err == nil {
		return host
	}
	return string(srv.Address)
}

// RemoveRaftPeer removes the first raft server match accepts from the
// configuration, on the leader (ErrNoLeader without one).
func (s *Server) RemoveRaftPeer(match func(*structs.RaftServer) bool) (uint64, bool, error) {
	if !s.waitForRaftLeader() {
		return 0, false, structs.ErrNoLeader
	}
	f := s.cluster.Raft().GetConfiguration()
	if err := f.Error(); err != nil {
		return 0, false, fmt.Errorf("reading the raft configuration: %w", err)
	}
	for _, srv := range f.Configuration().Servers {
		if !match(&structs.RaftServer{ID: string(srv.ID), Address: string(srv.Address)}) {
			continue
		}
		rf := s.cluster.Raft().RemoveServer(srv.ID, f.Index(), 0)
		if err := rf.Error(); err != nil {
			if errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrLeadershipLost) {
				return 0, false, structs.ErrNoLeader
			}
			return 0, false, fmt.Errorf("removing raft peer %s: %w", srv.ID, err)
		}
		s.logger.Info("removed raft peer", "id", srv.ID, "address", srv.Address)
		return rf.Index(), true, nil
	}
	return 0, false, nil
}

// SaveSnapshot takes a raft snapshot after a barrier (on the leader), so
// it holds every entry committed before the call, and returns it as an
// archive (server/snapshot) with its index.
func (s *Server) SaveSnapshot() ([]byte, uint64, error) {
	if s.cluster.Raft().State() == raft.Leader {
		if err := s.cluster.Raft().Barrier(snapshotTimeout).Error(); err != nil {
			return nil, 0, fmt.Errorf("snapshot barrier: %w", err)
		}
	}
	f := s.cluster.Raft().Snapshot()
	if err := f.Error(); err != nil {
		return nil, 0, fmt.Errorf("taking a raft snapshot: %w", err)
	}
	meta, rc, err := f.Open()
	if err != nil {
		return nil, 0, fmt.Errorf("opening the raft snapshot: %w", err)
	}
	defer rc.Close()
	var buf bytes.Buffer
	if err := snapshot.Write(&buf, meta, rc); err != nil {
		return nil, 0, err
	}
	return buf.Bytes(), meta.Index, nil
}

// RestoreSnapshot replaces the cluster's state with an archive's through
// raft's user restore on the leader: the leader's FSM restores it and the
// followers receive it as an installed snapshot. The archive is checked
// first (server/snapshot: streamed to a temporary file under the
// decompressed cap, members and checksums verified) and its state decoded
// once into a scratch store; a bad archive is a 400 coded error and
// changes nothing. One restore runs at a time on a server: another one
// meanwhile fails at once with ErrSnapshotRestoreInProgress (429).
func (s *Server) RestoreSnapshot(archive []byte) (uint64, error) {
	if !s.restoring.CompareAndSwap(false, true) {
		return 0, structs.ErrSnapshotRestoreInProgress
	}
	defer s.restoring.Store(false)
	arc, err := s.checkedSnapshot(archive)
	if err != nil {
		return 0, err
	}
	defer arc.Close()
	meta := arc.Meta
	if !s.waitForRaftLeader() {
		return 0, structs.ErrNoLeader
	}
	if err := s.cluster.Raft().Restore(meta, arc.State, snapshotTimeout); err != nil {
		if errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrLeadershipLost) {
			return 0, structs.ErrNoLeader
		}
		return 0, fmt.Errorf("restoring the snapshot: %w", err)
	}
	// Wait for the restore's entries to be applied, so a read that follows
	// sees the snapshot's state.
	if err := s.cluster.Raft().Barrier(snapshotTimeout).Error(); err != nil {
		return 0, fmt.Errorf("barrier after restore: %w", err)
	}
	index := s.cluster.Raft().LastIndex()
	s.logger.Info("restored a snapshot", "snapshot_index", meta.Index, "index", index)
	s.reassertLeadership()
	return index, nil
}

// reassertLeadership restarts the leader duties (as Nomad does after a
// snapshot restore): the broker, blocked evals and heartbeat timers held
// what the replaced state had, and are rebuilt from the restored one. The
// request goes to the leadership monitor goroutine, which owns the duties,
// as a revoke then an establish; if leadership was lost meanwhile, the
// establish fails its barrier and revokes again.
func (s *Server) reassertLeadership() {
	for _, v := range []bool{false, true} {
		select {
		case s.leaderNotifyCh <- v:
		case <-s.shutdownCh:
			return
		}
	}
}
