package config

import "time"

// GCConfig is the server block's garbage collection keys (Nomad's names):
// how often the leader collects and how long a finished object is kept.
// 0 keeps the default (server/gc: 5m, 4h, 1h, 24h, 1h, 24h).
type GCConfig struct {
	JobGCInterval         time.Duration // job_gc_interval
	JobGCThreshold        time.Duration // job_gc_threshold
	EvalGCThreshold       time.Duration // eval_gc_threshold
	BatchEvalGCThreshold  time.Duration // batch_eval_gc_threshold
	DeploymentGCThreshold time.Duration // deployment_gc_threshold
	NodeGCThreshold       time.Duration // node_gc_threshold
}

// gcFields lists the server block's GC keys (fields, Merge, Validate).
func (c *Config) gcFields() []field {
	g := &c.Server.GC
	return []field{
		{"server.job_gc_interval", &g.JobGCInterval}, {"server.job_gc_threshold", &g.JobGCThreshold},
		{"server.eval_gc_threshold", &g.EvalGCThreshold}, {"server.batch_eval_gc_threshold", &g.BatchEvalGCThreshold},
		{"server.deployment_gc_threshold", &g.DeploymentGCThreshold}, {"server.node_gc_threshold", &g.NodeGCThreshold},
	}
}

// validateGC refuses negative GC durations and an interval under a second
// (the leader would collect continuously).
func (c *Config) validateGC(bad func(key, format string, args ...any)) {
	for _, f := range c.gcFields() {
		if d := *f.ptr.(*time.Duration); d < 0 {
			bad(f.key, "can't be negative, got %s", d)
		}
	}
	if d := c.Server.GC.JobGCInterval; d > 0 && d < time.Second {
		bad("server.job_gc_interval", "must be at least 1s, got %s", d)
	}
}
