package cluster

import (
	"testing"
	"time"
)

func TestDeadPast(t *testing.T) {
	now := time.Unix(1000, 0)
	failed := []ServerMember{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	since := map[string]time.Time{"a": now.Add(-time.Minute), "b": now.Add(-10 * time.Second)}
	got := deadPast(failed, since, 30*time.Second, now)
	if len(got) != 1 || got[0].ID != "a" {
		t.Fatalf("deadPast = %+v, want only a (b is within the grace, c not tracked)", got)
	}
}

func TestStableForUsesHealthSource(t *testing.T) {
	now := time.Unix(1000, 0)
	c := &Cluster{aliveSince: map[string]time.Time{"a": now.Add(-time.Minute)}}
	if got := c.stableFor("a", now); got != time.Minute {
		t.Fatalf("without a health source: %s, want alive for 1m", got)
	}
	c.cfg.StableSince = func(id string) (time.Time, bool) {
		if id == "a" {
			return now.Add(-5 * time.Second), true
		}
		return time.Time{}, false
	}
	if got := c.stableFor("a", now); got != 5*time.Second {
		t.Fatalf("healthy for 5s: got %s", got)
	}
	if got := c.stableFor("b", now); got >= 0 {
		t.Fatalf("unhealthy server: %s, want negative", got)
	}
}

func TestAutopilotDefaultsWithoutStoredConfig(t *testing.T) {
	c := &Cluster{}
	if ap := c.autopilot(); !ap.CleanupDeadServers || ap.ServerStabilizationTime != 10*time.Second ||
		ap.LastContactThreshold != 200*time.Millisecond || ap.MaxTrailingLogs != 250 {
		t.Fatalf("defaults %+v", ap)
	}
}
