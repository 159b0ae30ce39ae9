package agent

import (
	"github.com/nomadish/nomadish/agent/config"
	"github.com/nomadish/nomadish/client/getter"
)

// artifactConfig turns the client's artifact block into the getter's
// limits. The block was validated with the config (config.Validate), so a
// parse error cannot happen here; if it did, Nomad's defaults apply.
func artifactConfig(a config.ArtifactConfig) *getter.Config {
	l, err := a.Limits()
	if err != nil {
		def := getter.DefaultConfig()
		def.DisableFilesystemIsolation = a.DisableFilesystemIsolation
		return &def
	}
	return &getter.Config{
		HTTPReadTimeout: l.HTTPReadTimeout, HTTPMaxBytes: l.HTTPMaxBytes,
		GCSTimeout: l.GCSTimeout, GitTimeout: l.GitTimeout,
		DecompressionSizeLimit: l.DecompressionSizeLimit, DecompressionFileCountLimit: l.DecompressionFileCountLimit,
		DisableFilesystemIsolation: l.DisableFilesystemIsolation,
	}
}
