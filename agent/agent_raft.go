package agent

import (
	"github.com/nomadish/nomadish/agent/config"
	"github.com/nomadish/nomadish/server/cluster"
)

// raftConfig translates the server block's raft durability keys; the
// config was validated (no negatives), so the conversions are exact.
func raftConfig(s config.ServerConfig) cluster.RaftConfig {
	return cluster.RaftConfig{
		SnapshotThreshold: uint64(s.RaftSnapshotThreshold),
		SnapshotInterval:  s.RaftSnapshotInterval,
		TrailingLogs:      uint64(s.RaftTrailingLogs),
		NoFreelistSync:    s.RaftBoltNoFreelistSync,
	}
}
