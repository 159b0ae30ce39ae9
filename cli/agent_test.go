package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func agentConfigFor(t *testing.T, args ...string) (*agentFlags, *flags, []string) {
	t.Helper()
	m := &Meta{Out: &strings.Builder{}, Err: &strings.Builder{}}
	f := m.newLocalFlags("agent", "")
	a := registerAgentFlags(f)
	pos, _, ok := m.parse(f, args)
	if !ok {
		t.Fatalf("parse %q failed", args)
	}
	return a, f, pos
}

func TestAgentConfigLayers(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.hcl")
	body := "datacenter = \"dc-file\"\nname = \"from-file\"\nregion = \"r-file\"\nports {\n  http = 5646\n}\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	a, f, _ := agentConfigFor(t, "-dev", "-config", file, "-dc", "dc-flag", "-servers", "10.0.0.1:4647, 10.0.0.2:4647", "-log-level", "WARN")
	cfg, err := buildAgentConfig(f, a)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.DevMode || cfg.Datacenter != "dc-flag" || cfg.Name != "from-file" || cfg.Region != "r-file" ||
		cfg.Ports.HTTP != 5646 || cfg.Ports.RPC != 4647 || cfg.LogLevel != "WARN" ||
		strings.Join(cfg.Client.Servers, " ") != "10.0.0.1:4647 10.0.0.2:4647" {
		t.Fatalf("config %+v", cfg)
	}
}

func TestAgentBadConfigExits1WithPlace(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bad.hcl")
	if err := os.WriteFile(file, []byte("ports {\n  htp = 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(nil, "agent", "-dev", "-config", file)
	if code != 1 || out != "" || !regexp.MustCompile(`bad\.hcl:2:3: `).MatchString(errOut) {
		t.Fatalf("exit %d, out %q, err %q", code, out, errOut)
	}
	code, _, errOut = runCLI(nil, "agent")
	if code != 1 || !strings.HasPrefix(errOut, "Error loading configuration:") {
		t.Fatalf("no server or client: exit %d, err %q", code, errOut)
	}
}
