package config

import "time"

// Autopilot is the rest of the autopilot block (Nomad's keys; cleanup and
// the dead-server grace are Server.CleanupDeadServers and DeadServerGrace):
// the configuration the first leader writes to raft when none is stored.
// After that the stored one rules (operator autopilot set-config); a zero
// value keeps Nomad's default.
type Autopilot struct {
	LastContactThreshold    time.Duration // last_contact_threshold (200ms)
	MaxTrailingLogs         int           // max_trailing_logs (250)
	MinQuorum               int           // min_quorum (0)
	ServerStabilizationTime time.Duration // server_stabilization_time (10s)
}

func (c *Config) autopilotFields() []field {
	return []field{
		{"autopilot.last_contact_threshold", &c.Autopilot.LastContactThreshold},
		{"autopilot.max_trailing_logs", &c.Autopilot.MaxTrailingLogs},
		{"autopilot.min_quorum", &c.Autopilot.MinQuorum},
		{"autopilot.server_stabilization_time", &c.Autopilot.ServerStabilizationTime},
	}
}

// validateAutopilot refuses negative values.
func (c *Config) validateAutopilot(bad func(key, format string, args ...any)) {
	a := c.Autopilot
	for key, d := range map[string]time.Duration{"autopilot.last_contact_threshold": a.LastContactThreshold,
		"autopilot.server_stabilization_time": a.ServerStabilizationTime} {
		if d < 0 {
			bad(key, "can't be negative, got %s", d)
		}
	}
	for key, n := range map[string]int{"autopilot.max_trailing_logs": a.MaxTrailingLogs, "autopilot.min_quorum": a.MinQuorum} {
		if n < 0 {
			bad(key, "can't be negative, got %d", n)
		}
	}
}
