package agent

import (
	"strings"
	"unicode"

	"github.com/nomadish/nomadish/agent/config"
	"github.com/nomadish/nomadish/client/getter"
)

// artifactConfig turns the client's artifact block into the getter's
// limits; downloads run in subprocesses of exe (the nomadish binary) with
// the variables set_environment_variables names. The block was validated
// with the config (config.Validate), so a parse error cannot happen here;
// if it did, Nomad's defaults apply.
func artifactConfig(a config.ArtifactConfig, exe string) *getter.Config {
	inherit := strings.FieldsFunc(a.SetEnvironmentVariables, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	l, err := a.Limits()
	if err != nil {
		def := getter.DefaultConfig()
		def.DisableFilesystemIsolation = a.DisableFilesystemIsolation
		def.Executable, def.InheritEnv = exe, inherit
		return &def
	}
	return &getter.Config{
		Executable: exe, InheritEnv: inherit,
		HTTPReadTimeout: l.HTTPReadTimeout, HTTPMaxBytes: l.HTTPMaxBytes,
		GCSTimeout: l.GCSTimeout, GitTimeout: l.GitTimeout,
		DecompressionSizeLimit: l.DecompressionSizeLimit, DecompressionFileCountLimit: l.DecompressionFileCountLimit,
		DisableFilesystemIsolation: l.DisableFilesystemIsolation,
	}
}
