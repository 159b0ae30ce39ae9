package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEphemeralDiskMigrate: a service job with ephemeral_disk { migrate =
// true } runs on one client agent and writes alloc/data and local/; the
// node is drained; the replacement on the other client agent starts with
// that data, fetched from the first node through the snapshot endpoint.
func TestEphemeralDiskMigrate(t *testing.T) {
	id := uniqueID("e2e-migrate")
	dc := uniqueID("dc-migrate")
	var agents []*agentProc
	for _, name := range []string{"mig1", "mig2"} {
		a, err := startAgent(filepath.Join(agentsDir(t), name), false, dev.rpcAddr, fmt.Sprintf("datacenter = %q", dc))
		if err != nil {
			t.Fatal(err)
		}
		agents = append(agents, a)
	}
	ids := map[string]string{} // name -> node ID
	t.Cleanup(func() {
		retireNodesIn(t, dc)
		nomadish(t, "job", "stop", "-purge", id)
		for _, a := range agents {
			a.stop()
			if t.Failed() {
				t.Logf("%s log (tail):\n%s", a.logPath, a.logTail())
			}
		}
	})
	eventually(t, 30*time.Second, "mig1 and mig2 ready", func() (bool, string) {
		var nodes []struct{ ID, Name, Status, Datacenter string }
		if err := getJSON(dev.addr+"/v1/nodes", &nodes); err != nil {
			return false, err.Error()
		}
		for _, n := range nodes {
			if n.Datacenter == dc && n.Status == "ready" {
				ids[n.Name] = n.ID
			}
		}
		return len(ids) == 2, fmt.Sprintf("%+v", nodes)
	})
	script := `d="$NOMAD_ALLOC_DIR/data"; if [ -f "$d/seen" ]; then echo "migrated from $(cat "$d/seen") with $(cat local/marker)"; fi
echo "$NOMAD_ALLOC_ID" > "$d/seen"; echo kept-local > local/marker; while true; do sleep 0.2; done`
	job := strings.Replace(rawExecJob(id, "service", "/bin/sh", []string{"-c", script}, 32),
		`type = "service"`, `type = "service"`+fmt.Sprintf("\n  datacenters = [%q]", dc), 1)
	job = strings.Replace(job, `group "g" {`, `group "g" {
    ephemeral_disk {
      migrate = true
      size    = 10
    }
    migrate {
      min_healthy_time = "1s"
    }`, 1)
	drained, other := ids["mig1"], ids["mig2"]
	if r := nomadish(t, "node", "eligibility", "-disable", other); r.code != 0 {
		t.Fatalf("node eligibility: %v", r)
	}
	if r := nomadish(t, "job", "run", writeFile(t, "migrate.nomad.hcl", job)); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	first := waitAllocs(t, id, 1, "running on mig1", func(a allocRow) bool {
		return a.ClientStatus == "running" && a.NodeID == drained
	})[0]
	if r := nomadish(t, "node", "eligibility", "-enable", other); r.code != 0 {
		t.Fatalf("node eligibility: %v", r)
	}
	if r := nomadish(t, "node", "drain", "-enable", "-deadline", "2m", "-yes", drained); r.code != 0 {
		t.Fatalf("node drain: %v", r)
	}
	var moved allocRow
	for _, a := range waitAllocs(t, id, 2, "moved to mig2", func(a allocRow) bool {
		return (a.NodeID == drained && a.ClientStatus == "complete") || (a.NodeID == other && a.ClientStatus == "running")
	}) {
		if a.NodeID == other {
			moved = a
		}
	}
	want := "migrated from " + first.ID + " with kept-local\n"
	eventually(t, 10*time.Second, "the replacement's log", func() (bool, string) {
		r := nomadish(t, "alloc", "logs", moved.ID, "t")
		return r.code == 0 && r.out == want, r.String()
	})
}

// TestEphemeralDiskSticky: a destructive update of a job whose group has a
// sticky ephemeral disk places the new allocation on the same node, which
// takes over the previous allocation's alloc/data and local/ once it has
// stopped.
func TestEphemeralDiskSticky(t *testing.T) {
	id := uniqueID("e2e-sticky")
	t.Cleanup(func() { nomadish(t, "job", "stop", "-purge", id) })
	script := `d="$NOMAD_ALLOC_DIR/data"; if [ -f "$d/seen" ]; then echo "sticky from $(cat "$d/seen") with $(cat local/marker)"; fi
echo "$NOMAD_ALLOC_ID" > "$d/seen"; echo kept-local > local/marker; while true; do sleep 0.2; done`
	job := func(version string) string {
		j := strings.Replace(rawExecJob(id, "service", "/bin/sh", []string{"-c", script}, 32), `group "g" {`, `group "g" {
    ephemeral_disk {
      sticky = true
      size   = 10
    }`, 1)
		return strings.Replace(j, `driver = "raw_exec"`, `driver = "raw_exec"
      env {
        VERSION = "`+version+`"
      }`, 1)
	}
	if r := nomadish(t, "job", "run", writeFile(t, "sticky1.nomad.hcl", job("1"))); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	first := waitAllocs(t, id, 1, "running", func(a allocRow) bool { return a.ClientStatus == "running" })[0]
	if r := nomadish(t, "job", "run", writeFile(t, "sticky2.nomad.hcl", job("2"))); r.code != 0 {
		t.Fatalf("job run (update): %v", r)
	}
	var next allocRow
	for _, a := range waitAllocs(t, id, 2, "replaced", func(a allocRow) bool {
		return (a.ID == first.ID && a.ClientStatus == "complete") || (a.ID != first.ID && a.ClientStatus == "running")
	}) {
		if a.ID != first.ID {
			next = a
		}
	}
	if next.NodeID != first.NodeID {
		t.Fatalf("replacement on node %s, previous on %s", next.NodeID, first.NodeID)
	}
	want := "sticky from " + first.ID + " with kept-local\n"
	eventually(t, 10*time.Second, "the replacement's log", func() (bool, string) {
		r := nomadish(t, "alloc", "logs", next.ID, "t")
		return r.code == 0 && r.out == want, r.String()
	})
}
