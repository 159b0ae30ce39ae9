package config

import (
	"fmt"

	"github.com/nomadish/nomadish/structs"
)

// validateJobLimits checks the server block's job limits (job_max_count): 0
// keeps the default (structs.DefaultJobMaxCount); negatives and values over
// structs.MaxJobMaxCount are refused. job_max_source_size must be a size
// ("1M", "512KiB") of at least 1 byte and under 2 GiB.
func (c *Config) validateJobLimits(bad func(key, format string, args ...any)) {
	if n := c.Server.JobMaxCount; n < 0 || n > structs.MaxJobMaxCount {
		bad("server.job_max_count", "must be between 0 (the default, %d) and %d, got %d",
			structs.DefaultJobMaxCount, structs.MaxJobMaxCount, n)
	}
	if _, err := c.Server.JobMaxSourceBytes(); err != nil {
		bad("server.job_max_source_size", "%v", err)
	}
}

// JobMaxSourceBytes is job_max_source_size in bytes (0 when unset: the
// server's default, structs.DefaultJobMaxSourceSize).
func (s *ServerConfig) JobMaxSourceBytes() (int, error) {
	if s.JobMaxSourceSize == "" {
		return 0, nil
	}
	n, err := ParseBytes(s.JobMaxSourceSize)
	if err != nil {
		return 0, err
	}
	if n < 1 || n >= 1<<31 {
		return 0, fmt.Errorf("must be between 1 byte and 2 GiB, got %q", s.JobMaxSourceSize)
	}
	return int(n), nil
}
