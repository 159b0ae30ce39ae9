package cli

import (
	"fmt"

	"github.com/nomadish/nomadish/version"
)

// versionCommand is `version`: prints version.String(), e.g.
// "nomadish v0.1.0 (abc1234)".
func versionCommand(m *Meta, args []string) int {
	f := m.newLocalFlags("version", "")
	pos, code, ok := m.parse(f, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return m.wrongArgs(f, "no arguments")
	}
	fmt.Fprintln(m.Out, version.String())
	return exitOK
}
