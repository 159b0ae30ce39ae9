package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeLimits(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "l.hcl")
	if err := os.WriteFile(path, []byte("data_dir = \"/d\"\nlimits {\n"+body+"}\nserver {\n  enabled = true\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The limits block: Nomad's defaults, explicit values (0 disables), and
// bad values named with their place.
func TestLimitsBlock(t *testing.T) {
	if got := DefaultConfig().Limits; got != (Limits{5 * time.Second, 100, 5 * time.Second, 100}) {
		t.Fatalf("defaults: %+v", got)
	}
	file, err := LoadFile(writeLimits(t, "  https_handshake_timeout = \"2s\"\n  http_max_conns_per_client = 0\n  rpc_handshake_timeout = \"0s\"\n  rpc_max_conns_per_client = 26\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig().Merge(file)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if want := (Limits{2 * time.Second, 0, 0, 26}); c.Limits != want {
		t.Fatalf("limits: %+v, want %+v", c.Limits, want)
	}

	bad := writeLimits(t, "  https_handshake_timeout = \"-1s\"\n  http_max_conns_per_client = -1\n  rpc_max_conns_per_client = 25\n")
	if file, err = LoadFile(bad); err != nil {
		t.Fatal(err)
	}
	err = DefaultConfig().Merge(file).Validate()
	for _, want := range []string{
		bad + ":3:3: limits.https_handshake_timeout: must be >= 0 (0 disables it), got -1s",
		bad + ":4:3: limits.http_max_conns_per_client: must be >= 0 (0 disables it), got -1",
		bad + ":5:3: limits.rpc_max_conns_per_client: must be 0 (no limit) or > 25, got 25",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error:\n%v\nwant a line:\n%s", err, want)
		}
	}
	if _, err := LoadFile(writeLimits(t, "  http_max_conns = 5\n")); err == nil || !strings.Contains(err.Error(), "http_max_conns") {
		t.Fatalf("unknown key: %v", err)
	}
}
