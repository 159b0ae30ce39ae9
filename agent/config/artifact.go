package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// ArtifactConfig is client { artifact { ... } }, Nomad's keys and string
// forms: durations ("30m") and sizes ("100GB", "512MiB"); "" takes Nomad's
// default (Limits). hg_timeout and s3_timeout are accepted so Nomad's files
// load, and do nothing: nomadish has no hg or s3 getter. set_environment_
// variables names the agent's variables the download subprocess inherits
// (website/artifacts.md).
type ArtifactConfig struct {
	HTTPReadTimeout             string
	HTTPMaxSize                 string
	GCSTimeout                  string
	GitTimeout                  string
	HgTimeout                   string
	S3Timeout                   string
	DecompressionSizeLimit      string
	DecompressionFileCountLimit string
	DisableFilesystemIsolation  bool
	SetEnvironmentVariables     string
}

// ArtifactLimits is an ArtifactConfig parsed, with defaults filled.
type ArtifactLimits struct {
	HTTPReadTimeout, GCSTimeout, GitTimeout time.Duration
	HTTPMaxBytes, DecompressionSizeLimit    int64
	DecompressionFileCountLimit             int
	DisableFilesystemIsolation              bool
}

// artifactFields lists the artifact block's keys (merge.go's fields).
func (c *Config) artifactFields() []field {
	a := &c.Client.Artifact
	const p = "client.artifact."
	return []field{
		{p + "http_read_timeout", &a.HTTPReadTimeout}, {p + "http_max_size", &a.HTTPMaxSize},
		{p + "gcs_timeout", &a.GCSTimeout}, {p + "git_timeout", &a.GitTimeout},
		{p + "hg_timeout", &a.HgTimeout}, {p + "s3_timeout", &a.S3Timeout},
		{p + "decompression_size_limit", &a.DecompressionSizeLimit},
		{p + "decompression_file_count_limit", &a.DecompressionFileCountLimit},
		{p + "disable_filesystem_isolation", &a.DisableFilesystemIsolation},
		{p + "set_environment_variables", &a.SetEnvironmentVariables},
	}
}

// Limits parses the block; an unset key gets Nomad's default (30m
// timeouts, 100GB sizes, 4096 files). The error has one line per bad key,
// each "client.artifact.<key>: problem".
func (a ArtifactConfig) Limits() (ArtifactLimits, error) {
	l := ArtifactLimits{DisableFilesystemIsolation: a.DisableFilesystemIsolation}
	var errs []error
	for _, d := range []struct {
		key string
		val string
		dst *time.Duration
	}{
		{"http_read_timeout", a.HTTPReadTimeout, &l.HTTPReadTimeout}, {"gcs_timeout", a.GCSTimeout, &l.GCSTimeout},
		{"git_timeout", a.GitTimeout, &l.GitTimeout}, {"hg_timeout", a.HgTimeout, nil}, {"s3_timeout", a.S3Timeout, nil},
	} {
		v := 30 * time.Minute
		if d.val != "" {
			var err error
			if v, err = time.ParseDuration(d.val); err != nil {
				errs = append(errs, fmt.Errorf("client.artifact.%s: %q is not a duration; use e.g. \"30m\"", d.key, d.val))
			} else if v < 0 {
				errs = append(errs, fmt.Errorf("client.artifact.%s: can't be negative, got %s", d.key, d.val))
			}
		}
		if d.dst != nil {
			*d.dst = v
		}
	}
	for _, s := range []struct {
		key, val string
		dst      *int64
	}{{"http_max_size", a.HTTPMaxSize, &l.HTTPMaxBytes}, {"decompression_size_limit", a.DecompressionSizeLimit, &l.DecompressionSizeLimit}} {
		*s.dst = 100_000_000_000
		if s.val != "" {
			n, err := ParseBytes(s.val)
			if err != nil {
				errs = append(errs, fmt.Errorf("client.artifact.%s: %v", s.key, err))
			}
			*s.dst = n
		}
	}
	l.DecompressionFileCountLimit = 4096
	if v := a.DecompressionFileCountLimit; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			errs = append(errs, fmt.Errorf("client.artifact.decompression_file_count_limit: must be a whole number >= 0, got %q", v))
		}
		l.DecompressionFileCountLimit = n
	}
	return l, errors.Join(errs...)
}

// validateArtifact reports the artifact block's bad values at their key.
func (c *Config) validateArtifact(bad func(key, format string, args ...any)) {
	if _, err := c.Client.Artifact.Limits(); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			key, msg, _ := strings.Cut(line, ": ")
			bad(key, "%s", msg)
		}
	}
}

// byteUnits are go-humanize's: SI (KB = 1000) and IEC (KiB = 1024).
var byteUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12, "p": 1e15, "pb": 1e15,
	"ki": 1 << 10, "kib": 1 << 10, "mi": 1 << 20, "mib": 1 << 20, "gi": 1 << 30, "gib": 1 << 30,
	"ti": 1 << 40, "tib": 1 << 40, "pi": 1 << 50, "pib": 1 << 50,
}

// ParseBytes reads a size as Nomad does (go-humanize): "100GB", "512 MiB",
// "1.5gb", "4096".
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return !unicode.IsDigit(r) && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	}
	f, err := strconv.ParseFloat(num, 64)
	mult, ok := byteUnits[unit]
	if err != nil || !ok {
		return 0, fmt.Errorf("%q is not a size; use e.g. \"100GB\" or \"512MiB\"", s)
	}
	v := f * mult
	if v >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return int64(v), nil
}
