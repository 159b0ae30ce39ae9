package config

import (
	"testing"
	"time"
)

func TestRaftKeysLoadAndValidate(t *testing.T) {
	src := "data_dir = \"/d\"\nserver {\n  enabled = true\n  raft_snapshot_threshold = 64\n  raft_snapshot_interval = \"2s\"\n  raft_trailing_logs = 16\n}\n"
	path := writeConfig(t, "r.hcl", src)
	file, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig().Merge(file)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	s := c.Server
	if s.RaftSnapshotThreshold != 64 || s.RaftSnapshotInterval != 2*time.Second || s.RaftTrailingLogs != 16 {
		t.Fatalf("server block: %+v", s)
	}

	src = "data_dir = \"/d\"\nserver {\n  enabled = true\n  raft_snapshot_interval = \"1ms\"\n  raft_trailing_logs = -1\n}\n"
	bad := writeConfig(t, "b.hcl", src)
	if file, err = LoadFile(bad); err != nil {
		t.Fatal(err)
	}
	err = DefaultConfig().Merge(file).Validate()
	want := bad + ":4:3: server.raft_snapshot_interval: must be at least 5ms, got 1ms\n" +
		bad + ":5:3: server.raft_trailing_logs: can't be negative, got -1"
	if err == nil || err.Error() != want {
		t.Fatalf("error:\n%v\nwant:\n%s", err, want)
	}
}
