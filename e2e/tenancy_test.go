package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// nomadishEnv runs the CLI against the dev agent with extra environment
// variables (NOMAD_NAMESPACE=...).
func nomadishEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(append(os.Environ(), "NOMADISH_ADDR="+dev.addr, "NOMAD_ADDR="), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	r := result{}
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running nomadish %v: %v", args, err)
		}
		r.code = ee.ExitCode()
	}
	r.out, r.errOut = out.String(), errb.String()
	return r
}

// TestNamespacesEndToEnd: a namespace is created with the CLI, a job runs
// in it (-namespace and NOMAD_NAMESPACE), lists across namespaces show it,
// the namespace can't be deleted while the job lives, and a job in an
// unknown namespace is refused.
func TestNamespacesEndToEnd(t *testing.T) {
	ns := uniqueID("team-a")
	if r := nomadish(t, "namespace", "apply", "-description", "Team A", "-meta", "owner=a", ns); r.code != 0 || !strings.Contains(r.out, "Successfully applied namespace") {
		t.Fatalf("namespace apply: %v", r)
	}
	if r := nomadish(t, "namespace", "list"); r.code != 0 || !strings.Contains(r.out, ns) || !strings.Contains(r.out, "default") {
		t.Fatalf("namespace list: %v", r)
	}
	if r := nomadish(t, "namespace", "status", ns); r.code != 0 || !strings.Contains(r.out, "Team A") || !strings.Contains(r.out, "owner") {
		t.Fatalf("namespace status: %v", r)
	}

	id := uniqueID("ns-job")
	file := writeFile(t, id+".hcl", rawExecJob(id, "service", "/bin/sleep", []string{"300"}, 32))
	if r := nomadish(t, "job", "run", "-detach", "-namespace", ns, file); r.code != 0 {
		t.Fatalf("job run -namespace: %v", r)
	}
	t.Cleanup(func() {
		nomadishEnv(t, []string{"NOMAD_NAMESPACE=" + ns}, "job", "stop", "-purge", id)
		nomadish(t, "namespace", "delete", ns)
	})
	// NOMAD_NAMESPACE reaches the same job.
	eventually(t, 30*time.Second, id+" running in "+ns, func() (bool, string) {
		r := nomadishEnv(t, []string{"NOMAD_NAMESPACE=" + ns}, "job", "status", id)
		return r.code == 0 && strings.Contains(r.out, "running"), r.String()
	})
	if r := nomadish(t, "job", "status", id); r.code == 0 {
		t.Fatalf("job found in default: %v", r)
	}
	r := nomadish(t, "job", "status", "-namespace", "*")
	if r.code != 0 || !strings.Contains(r.out, id) || !strings.Contains(r.out, "Namespace") || !strings.Contains(r.out, ns) {
		t.Fatalf("status across namespaces: %v", r)
	}
	var allocs []struct{ ID, Namespace, JobID string }
	if err := getJSON(dev.addr+"/v1/allocations?namespace=*", &allocs); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range allocs {
		found = found || (a.JobID == id && a.Namespace == ns)
	}
	if !found {
		t.Fatalf("allocations?namespace=* lacks %s/%s: %+v", ns, id, allocs)
	}

	if r := nomadish(t, "namespace", "delete", ns); r.code == 0 || !strings.Contains(r.errOut, "non-terminal job") || !strings.Contains(r.errOut, id) {
		t.Fatalf("delete with a running job: %v", r)
	}
	if r := nomadish(t, "namespace", "delete", "default"); r.code == 0 {
		t.Fatalf("delete default: %v", r)
	}
	if r := nomadish(t, "job", "run", "-detach", "-namespace", "no-such-ns", file); r.code == 0 || !strings.Contains(r.errOut, `namespace "no-such-ns" does not exist`) {
		t.Fatalf("job in unknown namespace: %v", r)
	}
	if r := nomadish(t, "namespace", "apply", "bad/name"); r.code == 0 {
		t.Fatalf("bad namespace name applied: %v", r)
	}
}

// TestNodePoolsEndToEnd: a client agent with node_pool = "gpu" registers
// in it (the pool is created); a job with node_pool = "gpu" lands on it and
// a job in "default" doesn't.
func TestNodePoolsEndToEnd(t *testing.T) {
	pool := uniqueID("gpu")
	name := uniqueID("gpu-client")
	dc := uniqueID("dc-gpu")
	dir := filepath.Join(agentsDir(t), name)
	c, err := startAgent(dir, false, dev.rpcAddr, fmt.Sprintf("datacenter = %q\nclient {\n  node_pool = %q\n}", dc, pool))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		retireNodesIn(t, dc)
		c.stop()
		if t.Failed() {
			t.Logf("%s log (tail):\n%s", name, c.logTail())
		}
	})
	eventually(t, 30*time.Second, "the gpu client in its pool", func() (bool, string) {
		r := nomadish(t, "node", "pool", "nodes", pool)
		return r.code == 0 && strings.Contains(r.out, name) && strings.Contains(r.out, "ready"), r.String()
	})
	if r := nomadish(t, "node", "pool", "list"); r.code != 0 || !strings.Contains(r.out, pool) || !strings.Contains(r.out, "all") {
		t.Fatalf("node pool list: %v", r)
	}
	spec := writeFile(t, "pool.hcl", fmt.Sprintf("node_pool %q {\n  description = \"GPU nodes\"\n  scheduler_config {\n    scheduler_algorithm = \"spread\"\n  }\n}\n", pool))
	if r := nomadish(t, "node", "pool", "apply", spec); r.code != 0 {
		t.Fatalf("node pool apply: %v", r)
	}
	if r := nomadish(t, "node", "pool", "info", pool); r.code != 0 || !strings.Contains(r.out, "GPU nodes") || !strings.Contains(r.out, "spread") {
		t.Fatalf("node pool info: %v", r)
	}

	// Both jobs are restricted to the test's datacenter: only the gpu
	// client is there.
	gpuJob, defJob := uniqueID("on-gpu"), uniqueID("on-default")
	for id, p := range map[string]string{gpuJob: pool, defJob: "default"} {
		body := strings.Replace(rawExecJob(id, "service", "/bin/sleep", []string{"300"}, 32), "  group", fmt.Sprintf("  datacenters = [%q]\n  node_pool = %q\n  group", dc, p), 1)
		if r := nomadish(t, "job", "run", "-detach", writeFile(t, id+".hcl", body)); r.code != 0 {
			t.Fatalf("job run %s: %v", id, r)
		}
		t.Cleanup(func() { nomadish(t, "job", "stop", "-purge", id) })
	}
	var nodes []struct{ ID, Name string }
	if err := getJSON(dev.addr+"/v1/node/pool/"+pool+"/nodes", &nodes); err != nil || len(nodes) != 1 {
		t.Fatalf("pool nodes %+v: %v", nodes, err)
	}
	waitAllocs(t, gpuJob, 1, "running on the gpu node", func(a allocRow) bool {
		return a.ClientStatus == "running" && a.NodeID == nodes[0].ID
	})
	// The default-pool job's first eval completes without a placement (a
	// blocked eval waits for a default node in the datacenter).
	eventually(t, 30*time.Second, defJob+" evaluated", func() (bool, string) {
		var evals []struct{ Status string }
		if err := getJSON(dev.addr+"/v1/job/"+defJob+"/evaluations", &evals); err != nil {
			return false, err.Error()
		}
		for _, e := range evals {
			if e.Status == "complete" {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v", evals)
	})
	if allocs := jobAllocs(t, defJob); len(allocs) != 0 {
		t.Fatalf("default-pool job placed in the gpu datacenter: %+v", allocs)
	}
	if r := nomadish(t, "node", "pool", "jobs", pool); r.code != 0 || !strings.Contains(r.out, gpuJob) || strings.Contains(r.out, defJob) {
		t.Fatalf("node pool jobs: %v", r)
	}
	if r := nomadish(t, "node", "pool", "delete", pool); r.code == 0 || !strings.Contains(r.errOut, "in use") {
		t.Fatalf("delete a pool in use: %v", r)
	}
	if r := nomadish(t, "node", "pool", "delete", "all"); r.code == 0 {
		t.Fatalf("delete all: %v", r)
	}
}
