package config

import (
	"strings"
	"testing"
	"time"
)

func TestHeartbeatKeys(t *testing.T) {
	src := "data_dir = \"/d\"\nserver {\n  enabled = true\n  min_heartbeat_ttl = \"2s\"\n  max_heartbeats_per_second = 200\n  heartbeat_grace = \"1s\"\n}\n"
	path := writeConfig(t, "h.hcl", src)
	file, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig().Merge(file)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Server.MinHeartbeatTTL != 2*time.Second || c.Server.MaxHeartbeatsPerSecond != 200 || c.Server.HeartbeatGrace != time.Second {
		t.Fatalf("server block %+v", c.Server)
	}

	c = DefaultConfig()
	c.Server.Enabled, c.DataDir = true, "/d"
	c.Server.MinHeartbeatTTL, c.Server.MaxHeartbeatsPerSecond = -time.Second, -1
	err = c.Validate()
	for _, want := range []string{"server.min_heartbeat_ttl: can't be negative, got -1s", "server.max_heartbeats_per_second: can't be negative, got -1"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}
