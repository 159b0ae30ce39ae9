package config

import "testing"

// TestRaftBoltNoFreelistSync: server.raft_boltdb.no_freelist_sync is
// read from its block and is off by default.
func TestRaftBoltNoFreelistSync(t *testing.T) {
	if DefaultConfig().Server.RaftBoltNoFreelistSync {
		t.Fatal("no_freelist_sync on by default")
	}
	src := "data_dir = \"/d\"\nserver {\n  enabled = true\n  raft_boltdb {\n    no_freelist_sync = true\n  }\n}\n"
	file, err := LoadFile(writeConfig(t, "r.hcl", src))
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig().Merge(file)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if !c.Server.RaftBoltNoFreelistSync {
		t.Fatalf("server block: %+v", c.Server)
	}
}
