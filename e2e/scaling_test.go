package e2e

import (
	"strings"
	"testing"
)

// A group's scaling block: count defaults to min, `job scale` outside
// [min, max] exits non-zero with the bound and changes nothing, and the
// policy is listed by /v1/scaling/policies.
func TestScalingBounds(t *testing.T) {
	const hcl = `job "e2e-scaled" {
  datacenters = ["nowhere"]
  group "web" {
    scaling {
      min = 2
      max = 3
    }
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["60"]
      }
    }
  }
}
`
	if r := nomadish(t, "job", "run", "-detach", writeFile(t, "scaled.nomad.hcl", hcl)); r.code != 0 {
		t.Fatalf("job run: %v", r)
	}
	t.Cleanup(func() { nomadish(t, "job", "stop", "-purge", "-detach", "e2e-scaled") })
	var job struct {
		JobModifyIndex uint64
		TaskGroups     []struct{ Count int }
	}
	if err := getJSON(dev.addr+"/v1/job/e2e-scaled", &job); err != nil || job.TaskGroups[0].Count != 2 {
		t.Fatalf("job %+v: %v (count should default to min 2)", job, err)
	}
	before := job.JobModifyIndex
	r := nomadish(t, "job", "scale", "-detach", "e2e-scaled", "web", "4")
	if r.code == 0 || !strings.Contains(r.errOut, "count 4 is greater than the scaling policy maximum 3") {
		t.Fatalf("scale above max: %v", r)
	}
	if err := getJSON(dev.addr+"/v1/job/e2e-scaled", &job); err != nil || job.JobModifyIndex != before || job.TaskGroups[0].Count != 2 {
		t.Fatalf("a refused scale changed the job: %+v %v", job, err)
	}
	var pols []struct {
		ID     string
		Target map[string]string
	}
	if err := getJSON(dev.addr+"/v1/scaling/policies?job=e2e-scaled", &pols); err != nil || len(pols) != 1 || pols[0].Target["Group"] != "web" {
		t.Fatalf("policies %+v: %v", pols, err)
	}
	var pol struct{ Min, Max int64 }
	if err := getJSON(dev.addr+"/v1/scaling/policy/"+pols[0].ID, &pol); err != nil || pol.Min != 2 || pol.Max != 3 {
		t.Fatalf("policy %+v: %v", pol, err)
	}
}
