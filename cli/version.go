package cli

import (
	"fmt"
	"runtime/debug"
)

// Version is nomadish's release; GitCommit is set at build time with
// -ldflags "-X github.com/nomadish/nomadish/cli.GitCommit=abc1234".
var (
	Version   = "0.1.0"
	GitCommit = ""
)

// versionString is "nomadish v0.1.0 (abc1234)", the commit taken from the
// ldflags or, failing that, from the VCS stamp of the build.
func versionString() string {
	commit := GitCommit
	if commit == "" {
		if info, ok := debug.ReadBuildInfo(); ok {
			dirty := false
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
		}
	}
	if commit == "" {
		return "nomadish v" + Version
	}
	return fmt.Sprintf("nomadish v%s (%s)", Version, commit)
}

// versionCommand is `version`.
func versionCommand(m *Meta, args []string) int {
	f := m.newFlags("version", "")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	fmt.Fprintln(m.Out, versionString())
	return exitOK
}
