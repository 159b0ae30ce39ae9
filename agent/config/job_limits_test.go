package config

import (
	"os"
	"path/filepath"
	"testing"
)

// TestJobMaxCountLoadAndValidate: server { job_max_count } loads, defaults
// to 0 (the server's 10000), and out-of-range values are refused naming
// the key and its file position.
func TestJobMaxCountLoadAndValidate(t *testing.T) {
	if n := DefaultConfig().Server.JobMaxCount; n != 0 {
		t.Fatalf("default job_max_count %d, want 0 (the server's default)", n)
	}
	load := func(src string) *Config {
		path := filepath.Join(t.TempDir(), "l.hcl")
		if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		file, err := LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return DefaultConfig().Merge(file)
	}
	c := load("data_dir = \"/d\"\nserver {\n  enabled = true\n  job_max_count = 500\n}\n")
	if err := c.Validate(); err != nil || c.Server.JobMaxCount != 500 {
		t.Fatalf("job_max_count = %d: %v", c.Server.JobMaxCount, err)
	}
	for _, v := range []string{"-1", "1000001"} {
		err := load("data_dir = \"/d\"\nserver {\n  enabled = true\n  job_max_count = " + v + "\n}\n").Validate()
		want := ":4:3: server.job_max_count: must be between 0 (the default, 10000) and 1000000, got " + v
		if err == nil || len(err.Error()) < len(want) || err.Error()[len(err.Error())-len(want):] != want {
			t.Fatalf("job_max_count = %s: %v, want an error ending %q", v, err, want)
		}
	}
}
