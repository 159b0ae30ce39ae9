// Package version holds nomadish's release and the commit it was built
// from, for the CLI, the agent's /v1/agent/self and the client's
// nomad.version node attribute.
package version

import (
	"fmt"
	"runtime/debug"
)

// Version is nomadish's release. GitCommit is set at build time with
// -ldflags "-X github.com/nomadish/nomadish/version.GitCommit=abc1234"
// (the GNUmakefile does); empty means "ask the Go build's VCS stamp".
var (
	Version   = "0.1.0"
	GitCommit = ""
)

// Revision is the commit the binary was built from: GitCommit when set by
// the linker, else the build's VCS stamp (vcs.revision, 8 characters, with
// "+dirty" for a modified tree), else "".
func Revision() string {
	if GitCommit != "" {
		return GitCommit
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	commit, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(commit) > 8 {
		commit = commit[:8]
	}
	if commit != "" && dirty {
		commit += "+dirty"
	}
	return commit
}

// String is "nomadish v0.1.0 (abc1234)", or "nomadish v0.1.0" when the
// revision is unknown.
func String() string {
	if rev := Revision(); rev != "" {
		return fmt.Sprintf("nomadish v%s (%s)", Version, rev)
	}
	return "nomadish v" + Version
}
