package agent

import (
	"github.com/nomadish/nomadish/agent/config"
	"github.com/nomadish/nomadish/structs"
)

// autopilotConfig is the initial autopilot configuration of the agent's
// autopilot block (Nomad's defaults for what it leaves out), which the
// first leader stores when raft holds none.
func autopilotConfig(c *config.Config) *structs.AutopilotConfig {
	out := structs.DefaultAutopilotConfig()
	out.CleanupDeadServers = c.Server.CleanupDeadServers
	a := c.Autopilot
	if a.LastContactThreshold > 0 {
		out.LastContactThreshold = a.LastContactThreshold
	}
	if a.MaxTrailingLogs > 0 {
		out.MaxTrailingLogs = uint64(a.MaxTrailingLogs)
	}
	if a.ServerStabilizationTime > 0 {
		out.ServerStabilizationTime = a.ServerStabilizationTime
	}
	out.MinQuorum = uint(max(a.MinQuorum, 0))
	return out
}
