package server

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/hashicorp/raft"

	"github.com/nomadish/nomadish/server/snapshot"
	"github.com/nomadish/nomadish/structs"
)

// snapshotTimeout bounds a snapshot save's barrier and a restore.
const snapshotTimeout = 2 * time.Minute

// RaftGetConfiguration lists the servers of the latest raft configuration
// (committed or not), marking the leader. Served by the leader unless the
// query allows stale (forward.go).
func (o *operatorEndpoint) RaftGetConfiguration(args *structs.GenericRequest, reply *structs.RaftConfigurationResponse) error {
	s := o.s
	f := s.cluster.Raft().GetConfiguration()
	if err := f.Error(); err != nil {
		return fmt.Errorf("reading the raft configuration: %w", err)
	}
	_, leaderID := s.cluster.Raft().LeaderWithID()
	names := map[string]string{}
	for _, m := range s.cluster.ServerMembers() {
		names[m.ID] = m.Name
	}
	reply.Index = f.Index()
	reply.Servers = make([]*structs.RaftServer, 0, len(f.Configuration().Servers))
	for _, srv := range f.Configuration().Servers {
		reply.Servers = append(reply.Servers, &structs.RaftServer{
			ID: string(srv.ID), Node: s.raftNodeName(srv, names), Address: string(srv.Address),
			Leader: srv.ID == leaderID && leaderID != "", Voter: srv.Suffrage == raft.Voter, RaftProtocol: "3",
		})
	}
	return nil
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

// RaftRemovePeerByID removes the raft server with ID args.ID from the
// configuration (on the leader). An unknown ID is a 404 coded error.
func (o *operatorEndpoint) RaftRemovePeerByID(args *structs.RaftPeerRequest, reply *structs.GenericResponse) error {
	return o.removePeer(args, reply, func(srv raft.Server) bool { return args.ID != "" && string(srv.ID) == args.ID },
		"id", args.ID)
}

// RaftRemovePeerByAddress removes the raft server at args.Address (its raft
// host:port). An unknown address is a 404 coded error.
func (o *operatorEndpoint) RaftRemovePeerByAddress(args *structs.RaftPeerRequest, reply *structs.GenericResponse) error {
	return o.removePeer(args, reply, func(srv raft.Server) bool { return args.Address != "" && string(srv.Address) == args.Address },
		"address", args.Address)
}

func (o *operatorEndpoint) removePeer(args *structs.RaftPeerRequest, reply *structs.GenericResponse, match func(raft.Server) bool, key, val string) error {
	s := o.s
	if val == "" {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "a peer %s is required", key)
	}
	if !s.waitForRaftLeader() {
		return structs.ErrNoLeader
	}
	f := s.cluster.Raft().GetConfiguration()
	if err := f.Error(); err != nil {
		return fmt.Errorf("reading the raft configuration: %w", err)
	}
	for _, srv := range f.Configuration().Servers {
		if !match(srv) {
			continue
		}
		rf := s.cluster.Raft().RemoveServer(srv.ID, f.Index(), 0)
		if err := rf.Error(); err != nil {
			if errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrLeadershipLost) {
				return structs.ErrNoLeader
			}
			return fmt.Errorf("removing raft peer %s: %w", srv.ID, err)
		}
		s.logger.Info("removed raft peer", "id", srv.ID, "address", srv.Address)
		reply.Index = rf.Index()
		return nil
	}
	return structs.NewCodedError(structs.ErrCodeNotFound, "no raft peer with %s %q", key, val)
}

// SnapshotSave takes a raft snapshot on the serving server (the leader
// unless the query allows stale) after a barrier, so it holds every entry
// committed before the call, and returns it as an archive
// (server/snapshot).
func (o *operatorEndpoint) SnapshotSave(args *structs.GenericRequest, reply *structs.SnapshotSaveResponse) error {
	s := o.s
	if s.cluster.Raft().State() == raft.Leader {
		if err := s.cluster.Raft().Barrier(snapshotTimeout).Error(); err != nil {
			return fmt.Errorf("snapshot barrier: %w", err)
		}
	}
	f := s.cluster.Raft().Snapshot()
	if err := f.Error(); err != nil {
		return fmt.Errorf("taking a raft snapshot: %w", err)
	}
	meta, rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("opening the raft snapshot: %w", err)
	}
	defer rc.Close()
	var buf bytes.Buffer
	if err := snapshot.Write(&buf, meta, rc); err != nil {
		return err
	}
	reply.Archive, reply.Index = buf.Bytes(), meta.Index
	return nil
}

// SnapshotRestore replaces the cluster's state with an archive's through
// raft's user restore on the leader: the leader's FSM restores it and the
// followers receive it as an installed snapshot. The archive is checked
// first (server/snapshot: streamed to a temporary file under the
// decompressed cap, members and checksums verified) and its state decoded
// once into a scratch store; a bad archive is a 400 coded error and
// changes nothing. One restore runs at a time on a server: another one
// meanwhile fails at once with ErrSnapshotRestoreInProgress (429).
func (o *operatorEndpoint) SnapshotRestore(args *structs.SnapshotRestoreRequest, reply *structs.SnapshotRestoreResponse) error {
	s := o.s
	if !s.restoring.CompareAndSwap(false, true) {
		return structs.ErrSnapshotRestoreInProgress
	}
	defer s.restoring.Store(false)
	arc, err := s.checkedSnapshot(args.Archive)
	if err != nil {
		return err
	}
	defer arc.Close()
	meta := arc.Meta
	if !s.waitForRaftLeader() {
		return structs.ErrNoLeader
	}
	if err := s.cluster.Raft().Restore(meta, arc.State, snapshotTimeout); err != nil {
		if errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrLeadershipLost) {
			return structs.ErrNoLeader
		}
		return fmt.Errorf("restoring the snapshot: %w", err)
	}
	// Wait for the restore's entries to be applied, so a read that follows
	// sees the snapshot's state.
	if err := s.cluster.Raft().Barrier(snapshotTimeout).Error(); err != nil {
		return fmt.Errorf("barrier after restore: %w", err)
	}
	reply.Index = s.cluster.Raft().LastIndex()
	s.logger.Info("restored a snapshot", "snapshot_index", meta.Index, "index", reply.Index)
	s.reassertLeadership()
	return nil
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
