package config

import (
	"strings"
	"testing"
	"time"
)

// TestGCKeysLoadAndValidate: the server block's GC keys load and merge; a
// negative one is refused naming its file:line:col, a bad duration too.
func TestGCKeysLoadAndValidate(t *testing.T) {
	src := "data_dir = \"/d\"\nserver {\n  enabled = true\n  job_gc_interval = \"1m\"\n  job_gc_threshold = \"2h\"\n" +
		"  eval_gc_threshold = \"30m\"\n  batch_eval_gc_threshold = \"12h\"\n  deployment_gc_threshold = \"15m\"\n  node_gc_threshold = \"48h\"\n}\n"
	file, err := LoadFile(writeConfig(t, "gc.hcl", src))
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig().Merge(file)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	want := GCConfig{JobGCInterval: time.Minute, JobGCThreshold: 2 * time.Hour, EvalGCThreshold: 30 * time.Minute,
		BatchEvalGCThreshold: 12 * time.Hour, DeploymentGCThreshold: 15 * time.Minute, NodeGCThreshold: 48 * time.Hour}
	if c.Server.GC != want {
		t.Fatalf("gc keys: %+v, want %+v", c.Server.GC, want)
	}

	bad := writeConfig(t, "neg.hcl", "data_dir = \"/d\"\nserver {\n  job_gc_threshold = \"-1h\"\n}\n")
	if file, err = LoadFile(bad); err != nil {
		t.Fatal(err)
	}
	err = DefaultConfig().Merge(file).Validate()
	if err == nil || !strings.Contains(err.Error(), bad+":3:3: server.job_gc_threshold: can't be negative") {
		t.Fatalf("negative threshold: %v", err)
	}

	worse := writeConfig(t, "dur.hcl", "data_dir = \"/d\"\nserver {\n  node_gc_threshold = \"a day\"\n}\n")
	if _, err = LoadFile(worse); err == nil || !strings.Contains(err.Error(), worse+":3:") || !strings.Contains(err.Error(), "node_gc_threshold") {
		t.Fatalf("bad duration: %v", err)
	}
}
