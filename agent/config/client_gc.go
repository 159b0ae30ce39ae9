package config

import "time"

// ClientGCConfig is the client's garbage collection keys, Nomad's names
// and defaults (DefaultClientGC): client { gc_interval = "1m"
// gc_disk_usage_threshold = 80 gc_inode_usage_threshold = 70
// gc_max_allocs = 50 gc_parallel_destroys = 2 } (client/allocgc,
// website/garbage-collection.md).
type ClientGCConfig struct {
	Interval            time.Duration
	DiskUsageThreshold  float64 // percent of the alloc dir's filesystem
	InodeUsageThreshold float64 // percent of its inodes
	MaxAllocs           int
	ParallelDestroys    int
}

// DefaultClientGC returns Nomad's defaults.
func DefaultClientGC() ClientGCConfig {
	return ClientGCConfig{Interval: time.Minute, DiskUsageThreshold: 80, InodeUsageThreshold: 70,
		MaxAllocs: 50, ParallelDestroys: 2}
}

// validateClientGC checks the gc keys: a positive interval, thresholds
// above 0 and at most 100 percent, at least one allocation and one
// destroy at a time. A zero no file set (a config built in code) takes
// the default (client/allocgc); a zero a file set is refused.
func (c *Config) validateClientGC(bad func(key, format string, args ...any)) {
	g := c.Client.GC
	given := func(key string, zero bool) bool {
		_, set := c.set[key]
		return set || !zero
	}
	if given("client.gc_interval", g.Interval == 0) && g.Interval <= 0 {
		bad("client.gc_interval", "must be positive, got %s", g.Interval)
	}
	for _, t := range []struct {
		key string
		v   float64
	}{{"client.gc_disk_usage_threshold", g.DiskUsageThreshold}, {"client.gc_inode_usage_threshold", g.InodeUsageThreshold}} {
		if given(t.key, t.v == 0) && (t.v <= 0 || t.v > 100) {
			bad(t.key, "must be a percentage above 0 and at most 100, got %v", t.v)
		}
	}
	if given("client.gc_max_allocs", g.MaxAllocs == 0) && g.MaxAllocs < 1 {
		bad("client.gc_max_allocs", "must be at least 1, got %d", g.MaxAllocs)
	}
	if given("client.gc_parallel_destroys", g.ParallelDestroys == 0) && g.ParallelDestroys < 1 {
		bad("client.gc_parallel_destroys", "must be at least 1, got %d", g.ParallelDestroys)
	}
}
