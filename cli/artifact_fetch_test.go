package cli

import (
	"strings"
	"testing"

	"github.com/nomadish/nomadish/client/getter"
)

// The hidden command the client runs for a download has the name the
// getter uses, is not listed in the help, and refuses input it cannot read.
func TestArtifactFetchCommand(t *testing.T) {
	if getter.SubCommand != "artifact-fetch" {
		t.Fatalf("getter runs %q, the command table has artifact-fetch", getter.SubCommand)
	}
	if _, out, _ := runCLI(nil, "-help"); strings.Contains(out, "artifact-fetch") {
		t.Errorf("help lists the hidden command:\n%s", out)
	}
	code, _, errOut := runCLI(nil, "artifact-fetch") // stdin holds no parameters
	if code == 0 || !strings.Contains(errOut, "artifact-fetch: reading parameters") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
}
