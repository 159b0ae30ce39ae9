package config

import "time"

// minRaftSnapshotInterval mirrors the lower bound of server/cluster's
// RaftConfig (raft refuses intervals under 5ms).
const minRaftSnapshotInterval = 5 * time.Millisecond

// validateRaft checks the server block's raft durability keys
// (raft_snapshot_threshold, raft_snapshot_interval, raft_trailing_logs):
// zero keeps raft's default, negatives and sub-5ms intervals are refused.
func (c *Config) validateRaft(bad func(key, format string, args ...any)) {
	s := c.Server
	if s.RaftSnapshotThreshold < 0 {
		bad("server.raft_snapshot_threshold", "can't be negative, got %d", s.RaftSnapshotThreshold)
	}
	if s.RaftTrailingLogs < 0 {
		bad("server.raft_trailing_logs", "can't be negative, got %d", s.RaftTrailingLogs)
	}
	if s.RaftSnapshotInterval < 0 {
		bad("server.raft_snapshot_interval", "can't be negative, got %s", s.RaftSnapshotInterval)
	} else if s.RaftSnapshotInterval > 0 && s.RaftSnapshotInterval < minRaftSnapshotInterval {
		bad("server.raft_snapshot_interval", "must be at least %s, got %s", minRaftSnapshotInterval, s.RaftSnapshotInterval)
	}
}
