package agent

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// The official client reads and writes the autopilot configuration (Nomad's
// defaults first, a check-and-set), reads the servers' health and is
// refused a leadership transfer to an unknown peer; /v1/agent/self has
// Nomad's stats sections; dynamic node metadata is applied and read, and
// reaches the servers' node, where constraints on ${meta.*} see it.
func TestOfficialClientOperatorCommands(t *testing.T) {
	_, c := devAgent(t)
	op := c.Operator()

	cfg, _, err := op.AutopilotGetConfiguration(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.CleanupDeadServers || cfg.LastContactThreshold != 200*time.Millisecond || cfg.MaxTrailingLogs != 250 ||
		cfg.MinQuorum != 0 || cfg.ServerStabilizationTime != 10*time.Second {
		t.Fatalf("defaults %+v", cfg)
	}
	cfg.CleanupDeadServers, cfg.MinQuorum, cfg.ServerStabilizationTime = false, 3, 30*time.Second
	wm, err := op.AutopilotSetConfiguration(cfg, nil)
	if err != nil || wm.LastIndex == 0 {
		t.Fatalf("set: %v", err)
	}
	got, _, err := op.AutopilotGetConfiguration(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.CleanupDeadServers || got.MinQuorum != 3 || got.ServerStabilizationTime != 30*time.Second || got.ModifyIndex != wm.LastIndex {
		t.Fatalf("after set %+v (write index %d)", got, wm.LastIndex)
	}
	stale := *got
	stale.ModifyIndex--
	if ok, _, err := op.AutopilotCASConfiguration(&stale, nil); err != nil || ok {
		t.Fatalf("stale cas: %v %v", ok, err)
	}
	got.MaxTrailingLogs = 10
	if ok, _, err := op.AutopilotCASConfiguration(got, nil); err != nil || !ok {
		t.Fatalf("fresh cas: %v %v", ok, err)
	}

	health, _, err := op.AutopilotServerHealth(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !health.Healthy || len(health.Servers) != 1 || !health.Servers[0].Leader || !health.Servers[0].Voter ||
		health.Leader != health.Servers[0].ID || len(health.Voters) != 1 || health.FailureTolerance != 0 {
		t.Fatalf("health %+v", health)
	}

	self, err := c.Agent().Self()
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range []string{"agent", "nomad", "raft", "runtime", "serf", "client"} {
		if self.Stats[sec] == nil {
			t.Errorf("no %q section in /v1/agent/self stats: %v", sec, self.Stats)
		}
	}
	if self.Stats["client"]["num_allocations"] == "" || self.Stats["runtime"]["kernel.name"] == "" || self.Stats["agent"]["server"] != "true" {
		t.Errorf("stats %v", self.Stats)
	}

	err = op.RaftTransferLeadershipByID("no-such-server", nil)
	if err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("transfer to an unknown peer: %v, want a 400", err)
	}

	testOfficialClientNodeMeta(t, c)
}

func testOfficialClientNodeMeta(t *testing.T, c *api.Client) {
	nodes, _, err := c.Nodes().List(nil)
	if err != nil || len(nodes) != 1 {
		t.Fatalf("nodes %v %v", nodes, err)
	}
	nodeID := nodes[0].ID
	gpu := "a100"
	resp, err := c.Nodes().Meta().Apply(&api.NodeMetaApplyRequest{NodeID: nodeID, Meta: map[string]*string{"gpu": &gpu}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Meta["gpu"] != "a100" || resp.Dynamic["gpu"] == nil || *resp.Dynamic["gpu"] != "a100" {
		t.Fatalf("apply: %+v", resp)
	}
	read, err := c.Nodes().Meta().Read(nodeID, nil)
	if err != nil || read.Meta["gpu"] != "a100" {
		t.Fatalf("read: %+v %v", read, err)
	}
	if _, err := c.Nodes().Meta().Read("", nil); err != nil {
		t.Fatalf("read of the local node: %v", err)
	}
	waitFor(t, 10*time.Second, "the servers' node has the meta", func() error {
		n, _, err := c.Nodes().Info(nodeID, nil)
		if err != nil || n.Meta["gpu"] != "a100" {
			return fmt.Errorf("node meta %v: %v", n.Meta, err)
		}
		return nil
	})
	job := api.NewBatchJob("needs-gpu", "needs-gpu", "global", 50)
	job.Datacenters = []string{"dc1"}
	job.Constrain(api.NewConstraint("${meta.gpu}", "=", "a100"))
	task := api.NewTask("t", "raw_exec").SetConfig("command", "/bin/true")
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	plan, _, err := c.Jobs().Plan(job, false, nil)
	if err != nil || len(plan.FailedTGAllocs) != 0 {
		t.Fatalf("plan with ${meta.gpu} = a100: %+v %v", plan, err)
	}
	if _, err := c.Nodes().Meta().Apply(&api.NodeMetaApplyRequest{NodeID: nodeID, Meta: map[string]*string{"gpu": nil}}, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the meta unset on the servers", func() error {
		n, _, err := c.Nodes().Info(nodeID, nil)
		if err != nil || n.Meta["gpu"] != "" {
			return fmt.Errorf("node meta %v: %v", n.Meta, err)
		}
		return nil
	})
	if plan, _, err = c.Jobs().Plan(job, false, nil); err != nil || len(plan.FailedTGAllocs) != 1 {
		t.Fatalf("plan after unset: %+v %v", plan, err)
	}
}
