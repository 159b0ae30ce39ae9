package cli

import (
	"os"

	"github.com/nomadish/nomadish/client/getter"
)

// artifactFetchCommand is the hidden `artifact-fetch`: the client runs the
// nomadish binary this way to download one artifact in a subprocess
// (client/getter's sandbox.go), its parameters on stdin.
func artifactFetchCommand(m *Meta, _ []string) int {
	return getter.RunSubprocess(os.Stdin, m.Err)
}
