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
// both nodes are ready, through the API and `node status`. Its node is in
// dc1 and stays "ready" for a heartbeat TTL after the agent stops: it is
// made ineligible first, so that no later test (or -count iteration) has
// its jobs placed on a dead node.
func TestSecondClientJoins(t *testing.T) {
	name := uniqueID("client2")
	dir := filepath.Join(agentsDir(t), name)
	c2, err := startAgent(dir, false, dev.rpcAddr)
	if err != nil {
		t.Fatal(err)
	}
	nodeID := ""
	t.Cleanup(func() {
		if nodeID != "" {
			nomadish(t, "node", "eligibility", "-disable", nodeID)
		}
		c2.stop()
		if t.Failed() {
			t.Logf("%s log (tail):\n%s", name, c2.logTail())
		}
	})
	// Other tests' client nodes may still count as ready (until their
	// heartbeat TTL passes), so wait for this one by name.
	eventually(t, 30*time.Second, "node "+name+" ready", func() (bool, string) {
		var nodes []struct{ ID, Name, Status string }
		if err := getJSON(dev.addr+"/v1/nodes", &nodes); err != nil {
			return false, err.Error()
		}
		for _, n := range nodes {
			if n.Name == name && n.Status == "ready" {
				nodeID = n.ID
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v", nodes)
	})
	r := nomadish(t, "node", "status")
	ready := regexp.MustCompile(`(?m)^[0-9a-f]{8}\s.*\sready$`).FindAllString(r.out, -1)
	if r.code != 0 || len(ready) < 2 || !strings.Contains(r.out, name) {
		t.Fatalf("node status: %v", r)
	}
	id := strings.Fields(ready[0])[0]
	if r := nomadish(t, "node", "status", id); r.code != 0 || !strings.Contains(r.out, "Status      = ready") {
		t.Fatalf("node status %s: %v", id, r)
	}
}
