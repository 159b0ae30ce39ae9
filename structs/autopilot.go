package structs

import (
	"fmt"
	"time"
)

// AutopilotConfigRequestType is the raft entry that writes the autopilot
// configuration (AutopilotSetConfigRequest). 120..121 are autopilot's.
const AutopilotConfigRequestType MessageType = 120

// RPC methods of the autopilot operator commands.
const (
	OperatorAutopilotGetConfigurationRPC = "Operator.AutopilotGetConfiguration"
	OperatorAutopilotSetConfigurationRPC = "Operator.AutopilotSetConfiguration"
	OperatorServerHealthRPC              = "Operator.ServerHealth"
	// StatusRaftStatsRPC answers one server's raft progress (any server
	// answers for itself; the leader asks each peer for the health report).
	StatusRaftStatsRPC = "Status.RaftStats"
)

// AutopilotConfig is the servers' autopilot configuration (Nomad's
// structs.AutopilotConfig, api.AutopilotConfiguration), kept in raft state.
type AutopilotConfig struct {
	// CleanupDeadServers removes failed servers from raft (still only
	// while they are a minority and the voters stay >= MinQuorum).
	CleanupDeadServers bool
	// LastContactThreshold: a server whose last contact with the leader is
	// older is unhealthy.
	LastContactThreshold time.Duration
	// MaxTrailingLogs: a server more entries behind the leader is unhealthy.
	MaxTrailingLogs uint64
	// MinQuorum is the least number of voters dead-server cleanup leaves.
	MinQuorum uint
	// ServerStabilizationTime is how long a new server stays alive and
	// healthy as a non-voter before the leader makes it a voter.
	ServerStabilizationTime time.Duration
	// The Enterprise options: stored and returned, not acted on.
	EnableRedundancyZones   bool
	DisableUpgradeMigration bool
	EnableCustomUpgrades    bool

	CreateIndex, ModifyIndex uint64
}

// DefaultAutopilotConfig is Nomad's default autopilot configuration, in
// force until one is written.
func DefaultAutopilotConfig() *AutopilotConfig {
	return &AutopilotConfig{
		CleanupDeadServers: true, LastContactThreshold: 200 * time.Millisecond,
		MaxTrailingLogs: 250, ServerStabilizationTime: 10 * time.Second,
	}
}

// Copy returns a copy of c (nil for nil).
func (c *AutopilotConfig) Copy() *AutopilotConfig {
	if c == nil {
		return nil
	}
	out := *c
	return &out
}

// Validate checks the durations are not negative.
func (c *AutopilotConfig) Validate() error {
	if c.LastContactThreshold < 0 {
		return fmt.Errorf("LastContactThreshold must not be negative: %s", c.LastContactThreshold)
	}
	if c.ServerStabilizationTime < 0 {
		return fmt.Errorf("ServerStabilizationTime must not be negative: %s", c.ServerStabilizationTime)
	}
	return nil
}

// AutopilotSetConfigRequest writes the autopilot configuration; with CAS
// only when the stored one's ModifyIndex is Config.ModifyIndex.
type AutopilotSetConfigRequest struct {
	Config AutopilotConfig
	CAS    bool
	WriteRequest
}

// AutopilotSetConfigResponse answers Operator.AutopilotSetConfiguration:
// Updated is false when a CAS write lost.
type AutopilotSetConfigResponse struct {
	Updated bool
	WriteMeta
}

// AutopilotConfigResponse answers Operator.AutopilotGetConfiguration.
type AutopilotConfigResponse struct {
	Config *AutopilotConfig
	QueryMeta
}

// ServerHealth is one server's health in the autopilot report (Nomad's
// api.ServerHealth).
type ServerHealth struct {
	ID, Name, Address string
	// SerfStatus is the serf member status ("alive", "failed", "left",
	// "none" when serf does not know it).
	SerfStatus string
	Version    string
	Leader     bool
	// LastContact is how long ago the server heard from the leader (0 on
	// the leader).
	LastContact         time.Duration
	LastTerm, LastIndex uint64
	Healthy, Voter      bool
	// StableSince is when the server last became healthy.
	StableSince time.Time
}

// OperatorHealthReply is the autopilot health report (Nomad's
// api.OperatorHealthReply without its Enterprise parts).
type OperatorHealthReply struct {
	// Healthy is true when every server is.
	Healthy bool
	// FailureTolerance is how many voters may fail with a quorum left
	// among the healthy ones.
	FailureTolerance int
	Servers          []ServerHealth
	// Leader is the leader's raft ID; Voters the voters' raft IDs.
	Leader string
	Voters []string
}

// RaftStats is one server's raft progress (Status.RaftStats).
type RaftStats struct {
	// LastContact is how long ago it heard from the leader (0: the leader
	// itself, or never).
	LastContact         time.Duration
	LastTerm, LastIndex uint64
}
