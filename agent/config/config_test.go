package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestLoadFileFull(t *testing.T) {
	c, err := LoadFile("testdata/full.hcl")
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Name: "node-1", Region: "eu", Datacenter: "dc2", DataDir: "/var/lib/nomadish", BindAddr: "10.0.0.5", LogLevel: "warn",
		Advertise: Addresses{HTTP: "192.168.1.5", RPC: "192.168.1.5:14647"},
		Addresses: Addresses{HTTP: "127.0.0.1"},
		Ports:     Ports{HTTP: 14646, RPC: 14647, Serf: 14648},
		Server:    ServerConfig{Enabled: true, BootstrapExpect: 1, NumSchedulers: 2, HeartbeatGrace: 30 * time.Second},
		Client: ClientConfig{Enabled: true, Servers: []string{"10.0.0.1:4647", "10.0.0.2"}, NodeClass: "gpu",
			Meta: map[string]string{"rack": "r1", "slot": "4"}, StateDir: "/var/lib/nomadish/cs", AllocDir: "/var/lib/nomadish/allocs"},
		Plugins: map[string]*PluginConfig{
			"raw_exec": {Name: "raw_exec", Config: map[string]any{"enabled": true}},
			"docker": {Name: "docker", Config: map[string]any{
				"allow_privileged": false,
				"gc":               []any{map[string]any{"image_delay": "3m"}},
				"volumes":          []any{map[string]any{"enabled": true}},
				"extra_labels":     []any{"job_name", "task_name"},
				"ratio":            0.5,
			}},
		},
	}
	got := *c
	got.set = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if err := DefaultConfig().Merge(c).Validate(); err != nil {
		t.Errorf("validate: %v", err)
	}
	for kind, want := range map[string]string{"http": "127.0.0.1:14646", "rpc": "10.0.0.5:14647", "serf": "10.0.0.5:14648", "x": ""} {
		if got := c.Addr(kind); got != want {
			t.Errorf("Addr(%s) = %q, want %q", kind, got, want)
		}
	}
	for kind, want := range map[string]string{"http": "192.168.1.5:14646", "rpc": "192.168.1.5:14647", "serf": "10.0.0.5:14648"} {
		if got := c.AdvertiseAddr(kind); got != want {
			t.Errorf("AdvertiseAddr(%s) = %q, want %q", kind, got, want)
		}
	}
}

func TestLoadFileErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"unknown top key", "name = \"a\"\nbogus = 1\n", `c.hcl:2:1: Unsupported argument; An argument named "bogus" is not expected in the top level.`},
		{"unknown server key", "server {\n  enabled = true\n  raft_protocol = 3\n}\n", `c.hcl:3:3: Unsupported argument; An argument named "raft_protocol" is not expected in a server block.`},
		{"unknown block", "vault {\n}\n", `c.hcl:1:1: Unsupported block type; Blocks of type "vault" are not expected in the top level.`},
		{"unknown nested block", "client {\n  overlay_network \"x\" {}\n}\n", `c.hcl:2:3: Unsupported block type; Blocks of type "overlay_network" are not expected in a client block.`},
		{"misspelt block", "sever {\n}\n", `c.hcl:1:1: Unsupported block type; Blocks of type "sever" are not expected in the top level. Did you mean "server"?`},
		{"misspelt server key", "server {\n  bootstrap_expct = 3\n}\n", `c.hcl:2:3: Unsupported argument; An argument named "bootstrap_expct" is not expected in a server block. Did you mean "bootstrap_expect"?`},
		{"misspelt nested block", "server {\n  server_jion {}\n}\n", `c.hcl:2:3: Unsupported block type; Blocks of type "server_jion" are not expected in a server block. Did you mean "server_join"?`},
		{"misspelt nested key", "client {\n  reserved {\n    coers = \"1\"\n  }\n}\n", `c.hcl:3:5: Unsupported argument; An argument named "coers" is not expected in a client.reserved block. Did you mean "cores"?`},
		{"misspelt plugin block", "plugin \"raw_exec\" {\n  confg {}\n}\n", `c.hcl:2:3: Unsupported block type; Blocks of type "confg" are not expected in a plugin block. Did you mean "config"?`},
		{"section as attribute", "ports = { http = 1 }\n", `c.hcl:1:1: Unsupported argument; An argument named "ports" is not expected in the top level.`},
		{"wrong type", "ports {\n  http = \"web\"\n}\n", `c.hcl:2:10: Incorrect value type; ports.http: a number is required.`},
		{"fraction", "server {\n  num_schedulers = 1.5\n}\n", `c.hcl:2:20: Incorrect value type; server.num_schedulers: a whole number is required.`},
		{"bool type", "server {\n  enabled = \"sure\"\n}\n", `c.hcl:2:13: Incorrect value type; server.enabled: a bool is required.`},
		{"bad duration", "server {\n  heartbeat_grace = \"soon\"\n}\n", `c.hcl:2:21: Invalid duration; server.heartbeat_grace: "soon" is not a duration`},
		{"plugin without label", "plugin {\n}\n", `c.hcl:1:1: Wrong number of labels; A plugin block takes one label`},
		{"plugin argument", "plugin \"x\" {\n  args = []\n}\n", `c.hcl:2:3: Unsupported argument; An argument named "args" is not expected in a plugin block`},
		{"labeled section", "server \"x\" {\n}\n", `c.hcl:1:1: Unexpected label; A server block takes no label.`},
		{"syntax", "name = \n", `c.hcl:1:8: Invalid expression`},
		{"variables not allowed", "name = var.x\n", `c.hcl:1:8: Variables not allowed`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.hcl")
			if err := os.WriteFile(path, []byte(tc.src), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := LoadFile(path)
			if err == nil {
				t.Fatal("no error")
			}
			msg := strings.ReplaceAll(err.Error(), path, "c.hcl")
			if !strings.HasPrefix(msg, tc.want) {
				t.Errorf("error:\n%s\nwant prefix:\n%s", msg, tc.want)
			}
		})
	}
}

func TestDevConfig(t *testing.T) {
	c := DevConfig()
	if err := c.Validate(); err != nil {
		t.Fatalf("dev config invalid: %v", err)
	}
	if !c.DevMode || !c.Server.Enabled || !c.Client.Enabled || c.Server.BootstrapExpect != 1 || c.DataDir != "" {
		t.Errorf("dev config = %+v", c)
	}
	if c.Addr("http") != "127.0.0.1:4646" || c.Addr("rpc") != "127.0.0.1:4647" || c.Addr("serf") != "127.0.0.1:4648" {
		t.Errorf("addrs %s %s %s", c.Addr("http"), c.Addr("rpc"), c.Addr("serf"))
	}
	if c.Plugins["raw_exec"].Config["enabled"] != true {
		t.Errorf("raw_exec not enabled: %+v", c.Plugins)
	}
}

func TestMergeDevAndFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.hcl")
	src := "ports {\n  http = 5646\n}\nclient {\n  enabled = false\n  meta {\n    a = \"file\"\n  }\n}\nplugin \"raw_exec\" {\n  config {\n    enabled = false\n  }\n}\nplugin \"exec\" {\n  config {}\n}\nlog_level = \"INFO\"\n"
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	file, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dev := DevConfig()
	dev.Client.Meta["a"], dev.Client.Meta["b"] = "dev", "dev"
	m := dev.Merge(file)
	if m.Ports.HTTP != 5646 || m.Ports.RPC != 4647 {
		t.Errorf("ports = %+v", m.Ports)
	}
	if m.Client.Enabled {
		t.Errorf("file's client.enabled = false did not win over dev's true")
	}
	if !m.Server.Enabled || !m.DevMode || m.BindAddr != "127.0.0.1" || m.LogLevel != "INFO" {
		t.Errorf("merged = %+v", m)
	}
	if want := map[string]string{"a": "file", "b": "dev"}; !reflect.DeepEqual(m.Client.Meta, want) {
		t.Errorf("meta = %v, want %v", m.Client.Meta, want)
	}
	if m.Plugins["raw_exec"].Config["enabled"] != false || m.Plugins["exec"] == nil {
		t.Errorf("plugins = %+v", m.Plugins)
	}
	// Neither input changed.
	if !dev.Client.Enabled || dev.Ports.HTTP != 4646 || dev.Plugins["raw_exec"].Config["enabled"] != true || dev.Client.Meta["a"] != "dev" {
		t.Errorf("Merge modified its receiver: %+v", dev)
	}
	// A config built in code: non-zero fields win, zero ones do not.
	m2 := DefaultConfig().Merge(&Config{Name: "n2", Server: ServerConfig{Enabled: true}})
	if m2.Name != "n2" || !m2.Server.Enabled || m2.Ports.HTTP != 4646 || m2.Region != "global" {
		t.Errorf("code merge = %+v", m2)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(c *Config)
		want   []string
	}{
		{"ok server", func(c *Config) { c.Server.Enabled = true; c.DataDir = "/d" }, nil},
		{"bad port", func(c *Config) { c.Server.Enabled = true; c.DataDir = "/d"; c.Ports.HTTP = -1; c.Ports.Serf = 70000 },
			[]string{"ports.http: must be 0-65535, got -1", "ports.serf: must be 0-65535, got 70000"}},
		{"no role", func(c *Config) {}, []string{"server.enabled: either server.enabled or client.enabled must be true"}},
		{"data_dir required", func(c *Config) { c.Server.Enabled = true },
			[]string{"data_dir: required when the server or client is enabled (outside -dev)"}},
		{"data_dir relative", func(c *Config) { c.Server.Enabled = true; c.DataDir = "data" },
			[]string{`data_dir: must be an absolute path, got "data"`}},
		{"client needs servers", func(c *Config) { c.Client.Enabled = true; c.DataDir = "/d" },
			[]string{"client.servers: required when the client runs without a local server"}},
		{"bad log level", func(c *Config) { c.Server.Enabled = true; c.DataDir = "/d"; c.LogLevel = "loud" },
			[]string{`log_level: must be one of trace, debug, info, warn, error, off; got "loud"`}},
		{"bad bind", func(c *Config) { c.Server.Enabled = true; c.DataDir = "/d"; c.BindAddr = "localhost" },
			[]string{`bind_addr: must be an IP address, got "localhost"`}},
		{"negatives", func(c *Config) {
			c.Server.Enabled, c.DataDir = true, "/d"
			c.Server.BootstrapExpect, c.Server.NumSchedulers, c.Server.HeartbeatGrace = -1, -2, -time.Second
		}, []string{"server.bootstrap_expect: can't be negative, got -1", "server.heartbeat_grace: can't be negative, got -1s", "server.num_schedulers: can't be negative, got -2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.mutate(c)
			err := c.Validate()
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || err.Error() != strings.Join(tc.want, "\n") {
				t.Errorf("error:\n%v\nwant:\n%s", err, strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestValidateNamesFilePosition(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v.hcl")
	if err := os.WriteFile(path, []byte("data_dir = \"/d\"\nserver {\n  enabled = true\n}\nports {\n  rpc = 99999\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	file, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	err = DefaultConfig().Merge(file).Validate()
	if want := path + ":6:3: ports.rpc: must be 0-65535, got 99999"; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

func TestLoadPathDir(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"a.hcl": "region = \"a\"\nports {\n  http = 1000\n}\n",
		"b.hcl": "region = \"b\"\n",
		"c.txt": "not hcl",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c, err := LoadPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Region != "b" || c.Ports.HTTP != 1000 {
		t.Errorf("dir config = %+v", c)
	}
	if _, err := LoadPath(filepath.Join(dir, "missing")); err == nil {
		t.Errorf("missing path: no error")
	}
}
