package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestSystemJobRunsOnTheNode runs a system raw_exec job limited to the dev
// agent's datacenter and checks that its node runs one allocation named
// <job>.<group>[0], that `job status` shows it, and that stopping the job
// stops it. The job is purged at the end so later tests (a second client
// joins last) see no system job to place.
func TestSystemJobRunsOnTheNode(t *testing.T) {
	id := uniqueID("e2e-system")
	job := strings.Replace(rawExecJob(id, "system", "/bin/sh", []string{"-c", "while true; do sleep 0.1; done"}, 32),
		`type = "system"`, `type = "system"`+"\n  datacenters = [\"dc1\"]", 1)
	path := writeFile(t, "system.nomad.hcl", job)
	// One create per ready node in dc1 (usually just the dev node).
	if r := nomadish(t, "job", "plan", path); r.code != 1 || !regexp.MustCompile(`Task Group: "g" \(\d+ create\)`).MatchString(r.out) {
		t.Fatalf("job plan of a new system job: %v", r)
	}
	if r := nomadish(t, "job", "run", path); r.code != 0 || !createdAlloc.MatchString(r.out) {
		t.Fatalf("job run: %v", r)
	}
	t.Cleanup(func() { nomadish(t, "job", "stop", "-purge", id) })
	devNode := firstNode(t)
	// Other tests' client nodes may still count as ready in dc1 for a while
	// (until their heartbeat TTL passes) and get an allocation too: look at
	// the dev node's and check that no node has two.
	var onDev allocRow
	eventually(t, 30*time.Second, id+" running on the dev node", func() (bool, string) {
		allocs := jobAllocs(t, id)
		perNode := map[string]int{}
		for _, a := range allocs {
			perNode[a.NodeID]++
			if a.NodeID == devNode {
				onDev = a
			}
		}
		for _, n := range perNode {
			if n > 1 {
				t.Fatalf("two allocations on one node: %+v", allocs)
			}
		}
		return onDev.ClientStatus == "running", fmt.Sprintf("%+v", allocs)
	})
	var alloc struct{ Name, JobID, TaskGroup string }
	if err := getJSON(dev.addr+"/v1/allocation/"+onDev.ID, &alloc); err != nil {
		t.Fatal(err)
	}
	if alloc.Name != id+".g[0]" {
		t.Fatalf("alloc name %q, want %s.g[0]", alloc.Name, id)
	}
	if r := nomadish(t, "job", "status", id); r.code != 0 || !strings.Contains(r.out, "system") ||
		!strings.Contains(r.out, "running") {
		t.Fatalf("job status: %v", r)
	}
	if r := nomadish(t, "job", "plan", path); r.code != 0 || !regexp.MustCompile(`\(\d+ ignore\)`).MatchString(r.out) {
		t.Fatalf("job plan of an unchanged system job: %v", r)
	}
	// Registering it again changes nothing: still one allocation (job run
	// returns once its eval is complete).
	if r := nomadish(t, "job", "run", path); r.code != 0 {
		t.Fatalf("job run again: %v", r)
	}
	for _, a := range jobAllocs(t, id) {
		if a.NodeID == devNode && a.ID != onDev.ID {
			t.Fatalf("after re-registering: a new allocation on the dev node: %+v", a)
		}
	}
	if r := nomadish(t, "job", "stop", id); r.code != 0 {
		t.Fatalf("job stop: %v", r)
	}
	eventually(t, 30*time.Second, id+" stopped", func() (bool, string) {
		allocs := jobAllocs(t, id)
		for _, a := range allocs {
			if a.DesiredStatus != "stop" || (a.NodeID == devNode && a.ClientStatus != "complete") {
				return false, fmt.Sprintf("%+v", allocs)
			}
		}
		return true, ""
	})
}

// firstNode returns the ID of the dev agent's own node: the first ready
// node registered in dc1.
func firstNode(t *testing.T) string {
	t.Helper()
	var nodes []struct {
		ID, Datacenter, Status string
		CreateIndex            uint64
	}
	if err := getJSON(dev.addr+"/v1/nodes", &nodes); err != nil {
		t.Fatal(err)
	}
	id, first := "", uint64(0)
	for _, n := range nodes {
		if n.Datacenter == "dc1" && n.Status == "ready" && (id == "" || n.CreateIndex < first) {
			id, first = n.ID, n.CreateIndex
		}
	}
	if id == "" {
		t.Fatalf("no ready node in dc1: %+v", nodes)
	}
	return id
}
