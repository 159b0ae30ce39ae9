package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"

	"github.com/nomadish/nomadish/structs"
)

// raftApplyTimeout bounds how long raftApply waits to enqueue an entry.
const raftApplyTimeout = 30 * time.Second

// rpcHoldTimeout is how long a request waits for a leader before failing
// with ErrNoLeader (Nomad's rpc_hold_timeout): a client registering while
// the server is still electing itself waits instead of failing.
const rpcHoldTimeout = 5 * time.Second

// setupRaft starts raft over the FSM. Dev mode keeps everything in memory;
// otherwise the log lives in <data_dir>/server/raft/raft.db, snapshots under
// <data_dir>/server/raft/snapshots, and peers talk through the RPC port
// (first byte rpcRaft). A single server bootstraps itself when it has no
// state yet.
func (s *Server) setupRaft() error {
	conf := raft.DefaultConfig()
	conf.Logger = s.logger.Named("raft")
	conf.NotifyCh = s.leaderNotifyCh
	conf.LocalID = raft.ServerID(s.serverID)
	// Single-server clusters only (issue 6 adds joining): elections need no
	// slack for slow peers, so a dev agent has a leader in a few ms.
	if s.cfg.DevMode {
		conf.HeartbeatTimeout = 10 * time.Millisecond
		conf.ElectionTimeout = 10 * time.Millisecond
		conf.LeaderLeaseTimeout = 5 * time.Millisecond
		conf.CommitTimeout = 5 * time.Millisecond
	} else {
		conf.HeartbeatTimeout = 200 * time.Millisecond
		conf.ElectionTimeout = 200 * time.Millisecond
		conf.LeaderLeaseTimeout = 100 * time.Millisecond
		conf.CommitTimeout = 10 * time.Millisecond
	}
	if err := s.cfg.Raft.applyTo(conf, s.cfg.DevMode); err != nil {
		return err
	}
	var (
		logs   raft.LogStore
		stable raft.StableStore
		snaps  raft.SnapshotStore
		trans  raft.Transport
	)
	if s.cfg.DevMode {
		store := raft.NewInmemStore()
		logs, stable, snaps = store, store, raft.NewInmemSnapshotStore()
		_, t := raft.NewInmemTransport(raft.ServerAddress(s.advertise))
		trans = t
	} else {
		dir := filepath.Join(s.cfg.DataDir, "server", "raft")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("creating raft dir: %w", err)
		}
		bolt, err := raftboltdb.NewBoltStore(filepath.Join(dir, "raft.db"))
		if err != nil {
			return fmt.Errorf("opening raft log: %w", err)
		}
		s.raftBolt = bolt
		cached, err := raft.NewLogCache(512, bolt)
		if err != nil {
			return fmt.Errorf("creating raft log cache: %w", err)
		}
		logs, stable = cached, bolt
		fss, err := raft.NewFileSnapshotStoreWithLogger(dir, 2, conf.Logger)
		if err != nil {
			return fmt.Errorf("creating raft snapshot store: %w", err)
		}
		snaps = fss
		trans = raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
			Stream: s.raftLayer, MaxPool: 3, Timeout: 10 * time.Second, Logger: conf.Logger,
		})
	}
	s.raftTransport = trans
	if err := s.bootstrapRaft(conf, logs, stable, snaps, trans); err != nil {
		return err
	}
	r, err := raft.NewRaft(conf, s.fsm, logs, stable, snaps, trans)
	if err != nil {
		return fmt.Errorf("starting raft: %w", err)
	}
	s.raft = r
	return nil
}

func (s *Server) bootstrapRaft(conf *raft.Config, logs raft.LogStore, stable raft.StableStore, snaps raft.SnapshotStore, trans raft.Transport) error {
	if s.cfg.BootstrapExpect != 1 && !s.cfg.DevMode {
		return nil
	}
	has, err := raft.HasExistingState(logs, stable, snaps)
	if err != nil {
		return fmt.Errorf("reading raft state: %w", err)
	}
	if has {
		return nil
	}
	cfg := raft.Configuration{Servers: []raft.Server{{
		Suffrage: raft.Voter, ID: conf.LocalID, Address: trans.LocalAddr(),
	}}}
	if err := raft.BootstrapCluster(conf, logs, stable, snaps, trans, cfg); err != nil {
		return fmt.Errorf("bootstrapping raft: %w", err)
	}
	return nil
}

// loadServerID returns the raft server ID: persisted under the data dir so
// that a restarted server is the same voter; random in dev mode.
func loadServerID(dataDir string, dev bool) (string, error) {
	if dev {
		return structs.GenerateUUID(), nil
	}
	path := filepath.Join(dataDir, "server", "server-id")
	if b, err := os.ReadFile(path); err == nil {
		if id := strings.TrimSpace(string(b)); id != "" {
			return id, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("reading server id: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("creating server dir: %w", err)
	}
	id := structs.GenerateUUID()
	if err := os.WriteFile(path, []byte(id+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("writing server id: %w", err)
	}
	return id, nil
}

// raftApply commits msg as an entry of type t and waits until it is applied
// to the local FSM. resp is the FSM's non-error response; an error the FSM
// returned comes back as err. Not the leader: structs.ErrNoLeader.
func (s *Server) raftApply(t structs.MessageType, msg any) (uint64, any, error) {
	buf, err := structs.Encode(t, msg)
	if err != nil {
		return 0, nil, err
	}
	if !s.waitForRaftLeader() {
		return 0, nil, structs.ErrNoLeader
	}
	f := s.raft.Apply(buf, raftApplyTimeout)
	if err := s.applyErr(f); err != nil { // raft_wait.go
		if errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrLeadershipLost) {
			return 0, nil, structs.ErrNoLeader
		}
		return 0, nil, fmt.Errorf("raft apply: %w", err)
	}
	resp := f.Response()
	if err, ok := resp.(error); ok {
		return f.Index(), nil, err
	}
	return f.Index(), resp, nil
}

// waitForLeaderDuties reports whether this server runs the leader duties,
// waiting up to holdTimeout for them. Once they run, the FSM has applied
// every committed entry (establishLeadership's barrier), so a read answers
// from current state: a server that just restarted must not answer "not
// found" for what its raft log holds but has not replayed yet.
func (s *Server) waitForLeaderDuties() bool {
	timer := time.NewTimer(s.holdTimeout)
	defer timer.Stop()
	for {
		ch, ready := s.leader.ready()
		if ready {
			return true
		}
		select {
		case <-ch:
		case <-timer.C:
			return false
		case <-s.shutdownCh:
			return false
		}
	}
}

// waitForRaftLeader reports whether this server is the raft leader, waiting
// up to rpcHoldTimeout for leadership to be established.
func (s *Server) waitForRaftLeader() bool {
	if s.raft.State() == raft.Leader {
		return true
	}
	timer := time.NewTimer(s.holdTimeout)
	defer timer.Stop()
	for {
		ch, ready := s.leader.ready()
		if ready || s.raft.State() == raft.Leader {
			return s.raft.State() == raft.Leader
		}
		select {
		case <-ch:
		case <-timer.C:
			return false
		case <-s.shutdownCh:
			return false
		}
	}
}
