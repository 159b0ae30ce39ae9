package e2e

import (
	"strings"
	"testing"
)

// On the dev agent, `job plan -why-not-node` for a job that asks for more
// memory than the node has, in a datacenter the node is not in, prints both
// reasons for the node, with numbers; plain `job plan` explains the failed
// placement as Nomad does.
func TestPlanWhyNotNode(t *testing.T) {
	var nodes []struct{ ID, Datacenter, Status string }
	if err := getJSON(dev.addr+"/v1/nodes", &nodes); err != nil || len(nodes) == 0 {
		t.Fatalf("nodes %v: %v", nodes, err)
	}
	node := nodes[0] // other tests may have added clients: prefer a ready one
	for _, n := range nodes {
		if n.Status == "ready" {
			node = n
			break
		}
	}
	job := rawExecJob("e2e-whynot", "service", "/bin/sleep", []string{"60"}, 10000000)
	job = strings.Replace(job, `type = "service"`, "type = \"service\"\n  datacenters = [\"nowhere\"]", 1)
	path := writeFile(t, "whynot.nomad.hcl", job)

	r := nomadish(t, "job", "plan", "-why-not-node", node.ID[:8], path)
	if r.code != 1 {
		t.Fatalf("job plan -why-not-node: %v", r)
	}
	for _, want := range []string{
		`is not feasible for group "g":`,
		`  * datacenter "` + node.Datacenter + `" not in the job's datacenters [nowhere]`,
		"  * exhausted memory: asks 10000000 MB, ",
	} {
		if !strings.Contains(r.out, want) {
			t.Errorf("output lacks %q:\n%v", want, r)
		}
	}

	r = nomadish(t, "job", "plan", path)
	for _, want := range []string{
		`+ Task Group: "g" (1 create)`,
		"WARNING: Failed to place all allocations.",
		"No nodes were eligible for evaluation",
		`No nodes are available in datacenter "nowhere"`,
	} {
		if !strings.Contains(r.out, want) {
			t.Errorf("plain plan lacks %q:\n%v", want, r)
		}
	}

	r = nomadish(t, "job", "plan", "-why-not-node", "no-such-node", path)
	if r.code != 255 || !strings.Contains(r.errOut, "no node matches") {
		t.Errorf("unknown node: %v", r)
	}
	if jobs := jobIDs(t); strings.Contains(strings.Join(jobs, ","), "e2e-whynot") {
		t.Errorf("plan registered the job: %v", jobs)
	}
}
