package config

import (
	"strings"
	"testing"
	"time"
)

func TestClientGCConfig(t *testing.T) {
	if got, want := DefaultConfig().Client.GC, (ClientGCConfig{Interval: time.Minute, DiskUsageThreshold: 80,
		InodeUsageThreshold: 70, MaxAllocs: 50, ParallelDestroys: 2}); got != want {
		t.Fatalf("defaults %+v, want Nomad's %+v", got, want)
	}
	src := `client {
  enabled                  = true
  gc_interval              = "30s"
  gc_disk_usage_threshold  = 90.5
  gc_inode_usage_threshold = 75
  gc_max_allocs            = 10
}
`
	c, err := loadSource([]byte(src), "c.hcl")
	if err != nil {
		t.Fatal(err)
	}
	got := DevConfig().Merge(c)
	if err := got.Validate(); err != nil {
		t.Fatalf("validate: %v", err)
	}
	want := ClientGCConfig{Interval: 30 * time.Second, DiskUsageThreshold: 90.5, InodeUsageThreshold: 75,
		MaxAllocs: 10, ParallelDestroys: 2}
	if got.Client.GC != want {
		t.Fatalf("merged gc %+v, want %+v", got.Client.GC, want)
	}
}

func TestClientGCConfigErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`client { gc_interval = "0s" }`, `c.hcl:1:10: client.gc_interval: must be positive`},
		{`client { gc_interval = "soon" }`, `client.gc_interval: "soon" is not a duration`},
		{`client { gc_disk_usage_threshold = 120 }`, `c.hcl:1:10: client.gc_disk_usage_threshold: must be a percentage above 0 and at most 100, got 120`},
		{`client { gc_inode_usage_threshold = 0 }`, `client.gc_inode_usage_threshold: must be a percentage`},
		{`client { gc_max_allocs = 0 }`, `c.hcl:1:10: client.gc_max_allocs: must be at least 1, got 0`},
		{`client { gc_parallel_destroys = -1 }`, `client.gc_parallel_destroys: must be at least 1, got -1`},
		{`client { gc_max_allocs = 2.5 }`, `client.gc_max_allocs: a whole number is required`},
	} {
		c, err := loadSource([]byte(tc.src), "c.hcl")
		if err == nil {
			err = DevConfig().Merge(c).Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.src, err, tc.want)
		}
	}
}
