package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loadString(t *testing.T, src string) (*Config, error) {
	t.Helper()
	return LoadFile(writeConfig(t, "c.hcl", src))
}

// writeConfig writes src to a file named name in a new temp dir and
// returns its path (errors name it: path:line:col).
func writeConfig(t *testing.T, name, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestClientPorts(t *testing.T) {
	c, err := loadString(t, `data_dir = "/d"
client {
  enabled          = true
  servers          = ["127.0.0.1:4647"]
  min_dynamic_port = 25000
  max_dynamic_port = 25100
  reserved {
    reserved_ports = "22,80,8000-8010"
  }
}
`)
	if err != nil {
		t.Fatal(err)
	}
	m := DefaultConfig().Merge(c)
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if m.Client.MinDynamicPort != 25000 || m.Client.MaxDynamicPort != 25100 || m.Client.ReservedPorts != "22,80,8000-8010" {
		t.Fatalf("client = %+v", m.Client)
	}
	for _, tc := range []struct{ body, want string }{
		{`min_dynamic_port = 30000
  max_dynamic_port = 20000`, ":5:3: client.max_dynamic_port: must be at least client.min_dynamic_port"},
		{`min_dynamic_port = 30000`, "client.max_dynamic_port: set both"},
		{`max_dynamic_port = 70000
  min_dynamic_port = 1`, ":4:3: client.max_dynamic_port: must be 0-65535"},
		{`reserved { reserved_ports = "22,x" }`, ":4:14: client.reserved.reserved_ports: invalid port"},
	} {
		c, err := loadString(t, "data_dir = \"/d\"\nclient {\n  enabled = true\n  "+tc.body+"\n}\nserver { enabled = true }\n")
		if err != nil {
			t.Fatalf("%s: %v", tc.body, err)
		}
		err = DefaultConfig().Merge(c).Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error = %v, want %q", tc.body, err, tc.want)
		}
	}
}
