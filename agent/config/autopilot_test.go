package config

import (
	"strings"
	"testing"
	"time"
)

func TestAutopilotBlock(t *testing.T) {
	c, err := loadString(t, `data_dir = "/d"
autopilot {
  cleanup_dead_servers      = false
  last_contact_threshold    = "500ms"
  max_trailing_logs         = 100
  min_quorum                = 3
  server_stabilization_time = "30s"
}
`)
	if err != nil {
		t.Fatal(err)
	}
	full := DevConfig().Merge(c)
	if err := full.Validate(); err != nil {
		t.Fatal(err)
	}
	want := Autopilot{LastContactThreshold: 500 * time.Millisecond, MaxTrailingLogs: 100, MinQuorum: 3, ServerStabilizationTime: 30 * time.Second}
	if full.Autopilot != want || full.Server.CleanupDeadServers {
		t.Fatalf("autopilot %+v, cleanup %v", full.Autopilot, full.Server.CleanupDeadServers)
	}

	bad, err := loadString(t, "data_dir = \"/d\"\nautopilot {\n  min_quorum = -1\n  server_stabilization_time = \"-1s\"\n}\n")
	if err == nil {
		err = DevConfig().Merge(bad).Validate()
	}
	if err == nil || !strings.Contains(err.Error(), "autopilot.min_quorum") || !strings.Contains(err.Error(), "autopilot.server_stabilization_time") {
		t.Fatalf("negative values: %v", err)
	}
}
