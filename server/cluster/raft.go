package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	"go.etcd.io/bbolt"

	"github.com/nomadish/nomadish/structs"
)

// setupRaft starts raft over the FSM. Dev mode keeps everything in memory;
// otherwise the log lives in <data_dir>/server/raft/raft.db, snapshots under
// <data_dir>/server/raft/snapshots, and peers talk through the RPC port
// (first byte RPCRaft, through Config.Layer). A single server bootstraps
// itself when it has no state yet. Called once, by New.
func (c *Cluster) setupRaft() error {
	conf := raft.DefaultConfig()
	conf.Logger = c.logger.Named("raft")
	conf.NotifyCh = c.cfg.LeaderNotify
	conf.LocalID = raft.ServerID(c.serverID)
	// Single-server clusters only (issue 6 adds joining): elections need no
	// slack for slow peers, so a dev agent has a leader in a few ms.
	if c.cfg.DevMode {
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
	if err := c.cfg.Raft.applyTo(conf, c.cfg.DevMode); err != nil {
		return err
	}
	var (
		logs   raft.LogStore
		stable raft.StableStore
		snaps  raft.SnapshotStore
		trans  raft.Transport
	)
	if c.cfg.DevMode {
		store := raft.NewInmemStore()
		logs, stable, snaps = store, store, raft.NewInmemSnapshotStore()
		_, t := raft.NewInmemTransport(raft.ServerAddress(c.cfg.Advertise))
		trans = t
	} else {
		dir := filepath.Join(c.cfg.DataDir, "server", "raft")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("creating raft dir: %w", err)
		}
		// The hashmap freelist: bbolt's default array freelist merges
		// every free page id on each commit, O(free pages) per raft
		// write, which grows with the log (a third of the leader's CPU at
		// 60,000 jobs in tools/gcbench). The file format is the same.
		bolt, err := raftboltdb.New(raftboltdb.Options{Path: filepath.Join(dir, "raft.db"),
			BoltOptions: &bbolt.Options{FreelistType: bbolt.FreelistMapType, NoFreelistSync: c.cfg.Raft.NoFreelistSync}})
		if err != nil {
			return fmt.Errorf("opening raft log: %w", err)
		}
		c.bolt = bolt
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
			Stream: c.cfg.Layer, MaxPool: 3, Timeout: 10 * time.Second, Logger: conf.Logger,
		})
	}
	c.transport = trans
	if err := c.bootstrapRaft(conf, logs, stable, snaps, trans); err != nil {
		return err
	}
	r, err := raft.NewRaft(conf, c.cfg.FSM, logs, stable, snaps, trans)
	if err != nil {
		return fmt.Errorf("starting raft: %w", err)
	}
	c.raft = r
	return nil
}

func (c *Cluster) bootstrapRaft(conf *raft.Config, logs raft.LogStore, stable raft.StableStore, snaps raft.SnapshotStore, trans raft.Transport) error {
	if c.cfg.BootstrapExpect != 1 && !c.cfg.DevMode {
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

// Apply commits buf (a structs.MessageType byte, then msgpack) through
// raft, waiting at most timeout to enqueue it, and waits until the local
// FSM applied it. resp is the FSM's non-error response; an error the FSM
// returned comes back as err. Not (or no longer) the leader:
// structs.ErrNoLeader.
func (c *Cluster) Apply(buf []byte, timeout time.Duration) (uint64, any, error) {
	f := c.raft.Apply(buf, timeout)
	if err := c.applyErr(f); err != nil {
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

// applyErr waits for an Apply future and returns its error, or
// raft.ErrRaftShutdown once the cluster is shutting down: raft never
// answers a future still queued when it stops (Apply's futures have no
// shutdown channel), and a worker waiting on one would hold the server's
// Shutdown (revokeLeadership waits for the workers) forever.
func (c *Cluster) applyErr(f raft.ApplyFuture) error {
	done := make(chan error, 1)
	go func() { done <- f.Error() }()
	select {
	case err := <-done:
		return err
	case <-c.shutdownCh:
		return raft.ErrRaftShutdown
	}
}

// Barrier waits, at most timeout, until the FSM applied every entry
// committed before the call (the leader's first act).
func (c *Cluster) Barrier(timeout time.Duration) error {
	return c.raft.Barrier(timeout).Error()
}

// UpdateOwnAddress fixes this server's address in the raft configuration
// after a restart on another address (a single server: no peer needs the
// old one). Called by the leader as it takes up its duties.
func (c *Cluster) UpdateOwnAddress(timeout time.Duration) error {
	f := c.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		return fmt.Errorf("reading raft configuration: %w", err)
	}
	adv := c.cfg.Advertise
	for _, srv := range f.Configuration().Servers {
		if string(srv.ID) == c.serverID && string(srv.Address) != adv {
			c.logger.Info("updating own raft address", "old", srv.Address, "new", adv)
			if err := c.raft.AddVoter(srv.ID, raft.ServerAddress(adv), 0, timeout).Error(); err != nil {
				return fmt.Errorf("updating own raft address: %w", err)
			}
		}
	}
	return nil
}

// FirstLogIndex is the oldest entry the on-disk raft log keeps (what
// compaction after a snapshot left); 0 in dev mode.
func (c *Cluster) FirstLogIndex() (uint64, error) {
	ls, ok := c.bolt.(raft.LogStore)
	if !ok {
		return 0, nil
	}
	return ls.FirstIndex()
}
