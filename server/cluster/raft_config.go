package cluster

import (
	"fmt"
	"time"

	"github.com/hashicorp/raft"
)

// minRaftSnapshotInterval is the smallest raft_snapshot_interval accepted:
// hashicorp/raft rejects intervals under 5ms, and a snapshot check that often
// would only burn CPU.
const minRaftSnapshotInterval = 5 * time.Millisecond

// RaftConfig holds the raft durability knobs of the server block, under
// Nomad's names. A zero field keeps hashicorp/raft's default (the same as
// Nomad's). They apply to servers with a data dir; a -dev server keeps its
// log in memory and ignores them.
type RaftConfig struct {
	// SnapshotThreshold (raft_snapshot_threshold) is how many log entries
	// are committed since the last snapshot before raft takes another one
	// (default 8192).
	SnapshotThreshold uint64
	// SnapshotInterval (raft_snapshot_interval) is how often raft checks
	// whether SnapshotThreshold is reached; raft staggers each check by a
	// random extra of up to one interval (default 120s).
	SnapshotInterval time.Duration
	// TrailingLogs (raft_trailing_logs) is how many entries stay in the log
	// after a snapshot, so that a follower slightly behind catches up from
	// the log rather than by receiving the whole snapshot (default 10240).
	TrailingLogs uint64
	// NoFreelistSync (raft_boltdb.no_freelist_sync) keeps bbolt's
	// freelist out of raft.db: each log write no longer rewrites it (a
	// big log's freelist is megabytes), at the cost of a scan of the file
	// when the server starts. Off by default, as Nomad's.
	NoFreelistSync bool
}

// Validate reports a knob raft cannot run with. Errors wrap ErrConfig and
// name the agent config key.
func (c RaftConfig) Validate() error {
	if c.SnapshotInterval != 0 && c.SnapshotInterval < minRaftSnapshotInterval {
		return fmt.Errorf("%w: raft_snapshot_interval must be at least %s (got %s)", ErrConfig, minRaftSnapshotInterval, c.SnapshotInterval)
	}
	return nil
}

// applyTo validates c and sets its non-zero knobs on conf. Called by
// setupRaft before raft starts; a dev server (in-memory log) keeps raft's
// defaults.
func (c RaftConfig) applyTo(conf *raft.Config, dev bool) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if dev {
		return nil
	}
	if c.SnapshotThreshold > 0 {
		conf.SnapshotThreshold = c.SnapshotThreshold
	}
	if c.SnapshotInterval > 0 {
		conf.SnapshotInterval = c.SnapshotInterval
	}
	if c.TrailingLogs > 0 {
		conf.TrailingLogs = c.TrailingLogs
	}
	return nil
}
