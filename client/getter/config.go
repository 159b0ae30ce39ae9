package getter

import "time"

// Config is the client's artifact block (Nomad's keys): the limits every
// download runs under. Zero sizes, counts and timeouts mean "no limit".
type Config struct {
	// HTTPReadTimeout bounds an HTTP download, from request to last byte
	// (http_read_timeout, default 30m).
	HTTPReadTimeout time.Duration
	// HTTPMaxBytes is the largest HTTP response body accepted; a larger
	// one fails the download (http_max_size, default 100GB).
	HTTPMaxBytes int64
	// GCSTimeout is accepted for Nomad's config files; go-getter v2's core
	// has no GCS getter, so it bounds nothing (gcs_timeout, default 30m).
	GCSTimeout time.Duration
	// GitTimeout bounds a git clone or fetch (git_timeout, default 30m).
	GitTimeout time.Duration
	// DecompressionSizeLimit bounds the bytes one archive unpacks to
	// (decompression_size_limit, default 100GB).
	DecompressionSizeLimit int64
	// DecompressionFileCountLimit bounds the entries one archive unpacks
	// (decompression_file_count_limit, default 4096).
	DecompressionFileCountLimit int
	// DisableFilesystemIsolation lifts the read confinement of local
	// sources (file:// and local git repositories may then be read from
	// anywhere on the client). Downloads are always staged and inspected
	// so that nothing is written outside the destination
	// (disable_filesystem_isolation, default false).
	DisableFilesystemIsolation bool
	// Executable, when set, is the nomadish binary: each download then runs
	// in a subprocess (`artifact-fetch`, sandbox.go) with a minimal
	// environment, killed with its children on stop or deadline. "" runs it
	// in this process (tests, embedders).
	Executable string
	// InheritEnv names the agent's environment variables the subprocess
	// gets besides PATH and TMPDIR (set_environment_variables).
	InheritEnv []string
}

// DefaultConfig returns Nomad's defaults.
func DefaultConfig() Config {
	return Config{
		HTTPReadTimeout:             30 * time.Minute,
		HTTPMaxBytes:                100_000_000_000, // "100GB", as go-humanize reads it
		GCSTimeout:                  30 * time.Minute,
		GitTimeout:                  30 * time.Minute,
		DecompressionSizeLimit:      100_000_000_000,
		DecompressionFileCountLimit: 4096,
	}
}

// deadline is the longest one artifact may take: the largest timeout (at
// least 30 minutes, as Nomad) plus a minute for the unpacking.
func (c Config) deadline() time.Duration {
	d := 30 * time.Minute
	for _, t := range []time.Duration{c.HTTPReadTimeout, c.GCSTimeout, c.GitTimeout} {
		d = max(d, t)
	}
	return d + time.Minute
}
