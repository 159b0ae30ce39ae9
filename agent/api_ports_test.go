package agent

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// TestOfficialClientPorts registers a job with a network block through the
// official client and reads back the ports its alloc holds and the node's
// network, in Nomad's JSON shape.
func TestOfficialClientPorts(t *testing.T) {
	_, c := devAgent(t)
	job := api.NewBatchJob("ports", "ports", "global", 50)
	job.Datacenters = []string{"dc1"}
	task := api.NewTask("t", "raw_exec").SetConfig("command", "/bin/sh").SetConfig("args", []string{"-c", "echo $NOMAD_PORT_http"})
	tg := api.NewTaskGroup("g", 1).AddTask(task)
	tg.Networks = []*api.NetworkResource{{
		ReservedPorts: []api.Port{{Label: "admin", Value: 23999}},
		DynamicPorts:  []api.Port{{Label: "http", To: 8080}},
	}}
	job.AddTaskGroup(tg)
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	got, _, err := c.Jobs().Info("ports", nil)
	if err != nil || len(got.TaskGroups[0].Networks) != 1 || got.TaskGroups[0].Networks[0].DynamicPorts[0].To != 8080 {
		t.Fatalf("job info networks %+v: %v", got.TaskGroups[0].Networks, err)
	}
	var alloc *api.Allocation
	waitFor(t, 20*time.Second, "the alloc to complete", func() error {
		stubs, _, err := c.Jobs().Allocations("ports", false, nil)
		if err != nil || len(stubs) != 1 || stubs[0].ClientStatus != "complete" {
			return fmt.Errorf("allocs %+v: %v", stubs, err)
		}
		alloc, _, err = c.Allocations().Info(stubs[0].ID, nil)
		return err
	})
	ports := alloc.AllocatedResources.Shared.Ports
	if len(ports) != 2 || ports[0].Label != "admin" || ports[0].Value != 23999 || ports[1].Label != "http" ||
		ports[1].Value < 20000 || ports[1].Value > 32000 || ports[1].To != 8080 || ports[1].HostIP == "" {
		t.Fatalf("alloc ports %+v", ports)
	}
	nets := alloc.AllocatedResources.Shared.Networks
	if len(nets) != 1 || nets[0].DynamicPorts[0].Value != ports[1].Value || nets[0].IP != ports[1].HostIP {
		t.Fatalf("alloc networks %+v", nets)
	}
	node, _, err := c.Nodes().Info(alloc.NodeID, nil)
	if err != nil || node.NodeResources.MinDynamicPort != 20000 || node.NodeResources.MaxDynamicPort != 32000 ||
		len(node.NodeResources.Networks) != 1 || node.NodeResources.Networks[0].IP != ports[1].HostIP {
		t.Fatalf("node resources %+v: %v", node.NodeResources, err)
	}
}
