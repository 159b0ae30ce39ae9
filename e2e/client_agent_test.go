package e2e

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// startClient starts a client agent joined to the dev server, in its own
// datacenter dc (so a test's jobs land only on it), with extra config
// lines, and waits for it. Cleanup retires its node and stops it, logging
// its tail when the test failed. Tests that restart their client start it
// themselves.
func startClient(t *testing.T, name, dc string, extra ...string) *agentProc {
	t.Helper()
	args := append([]string{fmt.Sprintf("datacenter = %q", dc)}, extra...)
	c, err := startAgent(filepath.Join(agentsDir(t), name), false, dev.rpcAddr, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		retireNodesIn(t, dc)
		c.stop()
		if t.Failed() {
			t.Logf("client %s log (tail):\n%s", name, c.logTail())
		}
	})
	if err := c.waitReady(2, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	return c
}

// hostVolumeConfig is the client block of one read-only host volume.
func hostVolumeConfig(name, path string) string {
	return fmt.Sprintf("client {\n  host_volume %q {\n    path      = %q\n    read_only = true\n  }\n}", name, path)
}
