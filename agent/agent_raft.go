package agent

import (
	"github.com/nomadish/nomadish/agent/config"
	"github.com/nomadish/nomadish/server"
)

// raftConfig translates the server block's raft durability keys; the
// config was validated (no negatives), so the conversions are exact.
func raftConfig(s config.ServerConfig) server.RaftConfig {
	return server.RaftConfig{
		SnapshotThreshold: uint64(s.RaftSnapshotThreshold),
		SnapshotInterval:  s.RaftSnapshotInterval,
		TrailingLogs:      uint64(s.RaftTrailingLogs),
	}
}
