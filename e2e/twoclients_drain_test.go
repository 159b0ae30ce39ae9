package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNodeDrainMigratesAllocs starts two client agents in datacenter
// "dc-drain" (no other test's job targets it), runs a service job of count 2
// on drain1 (drain2 is ineligible meanwhile), drains drain1 with `node drain`
// (which monitors until the drain completes: max_parallel 1, so one alloc
// at a time) and checks that the allocations moved to drain2 and drain1
// stays ineligible. Both nodes are
// made ineligible before their agents stop, so later tests' jobs never pick
// them while they still count as ready. The file sorts just before
// twoclients_test.go so that it runs after the tests that expect the dev
// node to be the only one (or the first).
func TestNodeDrainMigratesAllocs(t *testing.T) {
	id := uniqueID("e2e-drain")
	var agents []*agentProc
	for _, name := range []string{"drain1", "drain2"} {
		a, err := startAgent(filepath.Join(agentsDir(t), name), false, dev.rpcAddr, `datacenter = "dc-drain"`)
		if err != nil {
			t.Fatal(err)
		}
		agents = append(agents, a)
	}
	ids := map[string]string{} // name -> node ID
	t.Cleanup(func() {
		for _, id := range ids {
			nomadish(t, "node", "eligibility", "-disable", id)
		}
		nomadish(t, "job", "stop", "-purge", id)
		for _, a := range agents {
			a.stop()
			if t.Failed() {
				t.Logf("%s log (tail):\n%s", a.logPath, a.logTail())
			}
		}
	})
	eventually(t, 30*time.Second, "drain1 and drain2 ready", func() (bool, string) {
		var nodes []struct{ ID, Name, Status, Datacenter string }
		if err := getJSON(dev.addr+"/v1/nodes", &nodes); err != nil {
			return false, err.Error()
		}
		for _, n := range nodes {
			if n.Datacenter == "dc-drain" && n.Status == "ready" {
				ids[n.Name] = n.ID
			}
		}
		return len(ids) == 2, fmt.Sprintf("%+v", nodes)
	})

	job := strings.Replace(rawExecJob(id, "service", "/bin/sh", []string{"-c", "while true; do sleep 0.2; done"}, 32),
		`type = "service"`, `type = "service"`+"\n  datacenters = [\"dc-drain\"]", 1)
	job = strings.Replace(job, `group "g" {`, `group "g" {
    count = 2
    migrate {
      max_parallel     = 1
      min_healthy_time = "1s"
    }`, 1)
	drained, other := ids["drain1"], ids["drain2"]
	if r := nomadish(t, "node", "eligibility", "-disable", other); r.code != 0 {
		t.Fatalf("node eligibility: %v", r)
	}
	if r := nomadish(t, "job", "run", writeFile(t, "drain.nomad.hcl", job)); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	waitAllocs(t, id, 2, "running on drain1", func(a allocRow) bool {
		return a.ClientStatus == "running" && a.NodeID == drained
	})
	if r := nomadish(t, "node", "eligibility", "-enable", other); r.code != 0 {
		t.Fatalf("node eligibility: %v", r)
	}

	start := time.Now()
	r := nomadish(t, "node", "drain", "-enable", "-deadline", "2m", "-yes", drained)
	if r.code != 0 || !strings.Contains(r.out, "Drain complete for node "+drained) || strings.Count(r.out, "marked for migration") != 2 ||
		!strings.Contains(r.out, "have stopped") {
		t.Fatalf("node drain: %v", r)
	}
	t.Logf("drain of %s complete after %v:\n%s", drained, time.Since(start).Round(time.Millisecond), r.out)

	waitAllocs(t, id, 4, "moved to the other node", func(a allocRow) bool {
		if a.NodeID == drained {
			return a.DesiredStatus == "stop"
		}
		return a.NodeID == other && a.ClientStatus == "running"
	})
	var node struct {
		Drain                 bool
		SchedulingEligibility string
		DrainStrategy         *struct{}
	}
	if err := getJSON(dev.addr+"/v1/node/"+drained, &node); err != nil {
		t.Fatal(err)
	}
	if node.Drain || node.DrainStrategy != nil || node.SchedulingEligibility != "ineligible" {
		t.Fatalf("drained node: %+v", node)
	}
	if r := nomadish(t, "node", "status", drained); r.code != 0 || !strings.Contains(r.out, "Node drain complete") {
		t.Fatalf("node status: %v", r)
	}
}
