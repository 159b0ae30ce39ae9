package agent

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// TestListResources: GET /v1/nodes and /v1/allocations add the resources
// to their rows only with ?resources=true, as Nomad's (the web UI's
// topology page draws the whole cluster from these two lists).
func TestListResources(t *testing.T) {
	_, c := devAgent(t)

	nodes, _, err := c.Nodes().List(nil)
	if err != nil || len(nodes) != 1 {
		t.Fatalf("nodes %v: %v", nodes, err)
	}
	if nodes[0].NodeResources != nil || nodes[0].ReservedResources != nil {
		t.Fatalf("resources without ?resources=true: %+v", nodes[0].NodeResources)
	}
	withRes := &api.QueryOptions{Params: map[string]string{"resources": "true"}}
	nodes, _, err = c.Nodes().List(withRes)
	if err != nil || len(nodes) != 1 {
		t.Fatalf("nodes %v: %v", nodes, err)
	}
	if r := nodes[0].NodeResources; r == nil || r.Cpu.CpuShares <= 0 || r.Memory.MemoryMB <= 0 || nodes[0].ReservedResources == nil {
		t.Fatalf("node resources = %+v, reserved %+v", r, nodes[0].ReservedResources)
	}

	job := api.NewServiceJob("listres", "listres", "global", 50)
	job.Datacenters = []string{"dc1"}
	task := api.NewTask("sleep", "raw_exec").
		SetConfig("command", "/bin/sh").SetConfig("args", []string{"-c", "sleep 600"})
	task.Require(&api.Resources{CPU: intPtr(123), MemoryMB: intPtr(45)})
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "the job's allocation", func() error {
		allocs, _, err := c.Allocations().List(nil)
		if err != nil || len(allocs) != 1 {
			return fmt.Errorf("allocs %v: %v", allocs, err)
		}
		return nil
	})
	allocs, _, err := c.Allocations().List(nil)
	if err != nil || len(allocs) != 1 || allocs[0].AllocatedResources != nil {
		t.Fatalf("allocs without ?resources=true: %+v: %v", allocs, err)
	}
	allocs, _, err = c.Allocations().List(withRes)
	if err != nil || len(allocs) != 1 || allocs[0].AllocatedResources == nil {
		t.Fatalf("allocs with ?resources=true: %+v: %v", allocs, err)
	}
	tr := allocs[0].AllocatedResources.Tasks["sleep"]
	if tr == nil || tr.Cpu.CpuShares != 123 || tr.Memory.MemoryMB != 45 {
		t.Fatalf("task resources = %+v", tr)
	}
	if _, _, err := c.Jobs().Deregister("listres", true, nil); err != nil {
		t.Fatal(err)
	}
}

func intPtr(i int) *int { return &i }
