package config

import "github.com/nomadish/nomadish/structs"

// validateJobLimits checks the server block's job limits (job_max_count): 0
// keeps the default (structs.DefaultJobMaxCount); negatives and values over
// structs.MaxJobMaxCount are refused.
func (c *Config) validateJobLimits(bad func(key, format string, args ...any)) {
	if n := c.Server.JobMaxCount; n < 0 || n > structs.MaxJobMaxCount {
		bad("server.job_max_count", "must be between 0 (the default, %d) and %d, got %d",
			structs.DefaultJobMaxCount, structs.MaxJobMaxCount, n)
	}
}
