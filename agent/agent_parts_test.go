package agent

import (
	"net"
	"testing"

	"github.com/nomadish/nomadish/agent/config"
	"github.com/nomadish/nomadish/version"
)

// TestClientConfigFromAgentConfig: client.state_dir, client.alloc_dir and
// the build's version reach the client's config.
func TestClientConfigFromAgentConfig(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cfg := config.DefaultConfig()
	cfg.DataDir = "/var/lib/nomadish"
	cfg.Client.StateDir, cfg.Client.AllocDir = "/srv/state", "/srv/allocs"
	a := &Agent{cfg: cfg, ln: ln}
	cc, err := a.clientConfig(options{pluginExe: "/bin/true"})
	if err != nil {
		t.Fatal(err)
	}
	if cc.StateDir != "/srv/state" || cc.AllocDir != "/srv/allocs" || cc.DataDir != "/var/lib/nomadish" {
		t.Errorf("dirs: state %q alloc %q data %q", cc.StateDir, cc.AllocDir, cc.DataDir)
	}
	if cc.Version != version.Version || cc.Version == "" {
		t.Errorf("client version %q, want %q", cc.Version, version.Version)
	}
	v, ok := a.configMap()["Version"].(map[string]string)
	if !ok || v["Version"] != version.Version {
		t.Errorf("agent self config Version = %v", a.configMap()["Version"])
	}
}
