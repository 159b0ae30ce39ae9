package e2e

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestSecondClientJoins starts a client-only agent (its own data dir and
// ports, server disabled) pointed at the dev agent's RPC port and checks that
// both nodes are ready, through the API and `node status`. It lives in the
// last file so that it runs last: once it ends, the dead second node stays
// "ready" until its heartbeat TTL passes and could be picked by other tests.
func TestSecondClientJoins(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "client2")
	c2, err := startAgent(dir, false, dev.rpcAddr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c2.stop()
		if t.Failed() {
			t.Logf("client2 log (tail):\n%s", c2.logTail())
		}
	})
	// Other tests' client nodes may still count as ready (until their
	// heartbeat TTL passes), so wait for this one by name.
	eventually(t, 30*time.Second, "node client2 ready", func() (bool, string) {
		var nodes []struct{ Name, Status string }
		if err := getJSON(dev.addr+"/v1/nodes", &nodes); err != nil {
			return false, err.Error()
		}
		for _, n := range nodes {
			if n.Name == "client2" && n.Status == "ready" {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v", nodes)
	})
	r := nomadish(t, "node", "status")
	ready := regexp.MustCompile(`(?m)^[0-9a-f]{8}\s.*\sready$`).FindAllString(r.out, -1)
	if r.code != 0 || len(ready) < 2 || !strings.Contains(r.out, "client2") {
		t.Fatalf("node status: %v", r)
	}
	id := strings.Fields(ready[0])[0]
	if r := nomadish(t, "node", "status", id); r.code != 0 || !strings.Contains(r.out, "Status      = ready") {
		t.Fatalf("node status %s: %v", id, r)
	}
}
