package config

import (
	"os"
	"path/filepath"
	"strings"
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

// TestJobMaxSourceSize: server { job_max_source_size } reads a size as
// Nomad's does ("1M", "512KiB"); unset is 0 (the server's 1 MB); a bad or
// empty size is refused naming the key.
func TestJobMaxSourceSize(t *testing.T) {
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
	if n, err := DefaultConfig().Server.JobMaxSourceBytes(); n != 0 || err != nil {
		t.Fatalf("default %d %v, want 0", n, err)
	}
	c := load("data_dir = \"/d\"\nserver {\n  enabled = true\n  job_max_source_size = \"512KiB\"\n}\n")
	if n, err := c.Server.JobMaxSourceBytes(); err != nil || n != 512<<10 || c.Validate() != nil {
		t.Fatalf("512KiB: %d %v %v", n, err, c.Validate())
	}
	for _, v := range []string{"lots", "0B"} {
		err := load("data_dir = \"/d\"\nserver {\n  enabled = true\n  job_max_source_size = \"" + v + "\"\n}\n").Validate()
		if err == nil || !strings.Contains(err.Error(), "server.job_max_source_size") {
			t.Errorf("job_max_source_size = %q: %v, want an error naming the key", v, err)
		}
	}
}
