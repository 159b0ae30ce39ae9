package agent

import (
	"strings"
	"testing"
	"time"
)

// The official client reads and writes the autopilot configuration (Nomad's
// defaults first, a check-and-set), reads the servers' health and is
// refused a leadership transfer to an unknown peer; /v1/agent/self has
// Nomad's stats sections.
func TestOfficialClientAutopilotAndTransferLeadership(t *testing.T) {
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
}
