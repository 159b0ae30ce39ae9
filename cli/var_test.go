package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/agent"
	"github.com/nomadish/nomadish/agent/config"
	"github.com/nomadish/nomadish/structs"
)

// varServer starts a real in-process dev server (no client) and waits for
// a leader; it returns the env pointing the CLI at it.
func varServer(t *testing.T) map[string]string {
	t.Helper()
	cfg := config.DevConfig()
	cfg.Name = "cli-vars"
	cfg.Ports = config.Ports{}
	cfg.Client.Enabled = false
	a, err := agent.New(cfg, hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Shutdown() })
	env := map[string]string{"NOMAD_ADDR": "http://" + a.HTTPAddr()}
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, out, errOut := runCLI(env, "status")
		if code == 0 {
			return env
		}
		if time.Now().After(deadline) {
			t.Fatalf("no leader: %d %q %q", code, out, errOut)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestVarCommands(t *testing.T) {
	env := varServer(t)
	run := func(args ...string) (int, string, string) { return runCLI(env, args...) }

	if code, out, errOut := run("var", "put", "app/db", "user=admin", "pass=hunter2"); code != 0 || !strings.Contains(out, `Created variable "app/db" with modify index`) {
		t.Fatalf("put: %d %q %q", code, out, errOut)
	}
	if code, out, _ := run("var", "get", "-item", "pass", "app/db"); code != 0 || out != "hunter2\n" {
		t.Fatalf("get -item: %d %q", code, out)
	}
	code, out, _ := run("var", "get", "-out", "json", "app/db")
	var v structs.VariableDecrypted
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v.Items["user"] != "admin" || v.ModifyIndex == 0 {
		t.Fatalf("get -out json: %d %q", code, out)
	}
	if code, out, _ := run("var", "get", "-out", "go-template", "-template", "{{.Path}}:{{.Items.user}}", "app/db"); code != 0 || out != "app/db:admin\n" {
		t.Fatalf("go-template: %d %q", code, out)
	}
	// A stale -cas is a conflict, exit 1, nothing written.
	if code, _, errOut := run("var", "put", "-cas", "1", "app/db", "pass=x"); code != 1 || !strings.Contains(errOut, "Check-and-Set conflict") {
		t.Fatalf("stale cas: %d %q", code, errOut)
	}
	if _, out, _ := run("var", "get", "-item", "pass", "app/db"); out != "hunter2\n" {
		t.Fatalf("conflicting put changed the variable: %q", out)
	}
	// A spec file, with a modify index: check-and-set, -force overrides.
	spec := filepath.Join(t.TempDir(), "spec.nv.hcl")
	os.WriteFile(spec, []byte("path = \"app/web\"\nitems {\n  port = \"8080\"\n}\n"), 0o600)
	if code, _, errOut := run("var", "put", "@"+spec); code != 0 {
		t.Fatalf("put @spec: %d %q", code, errOut)
	}
	bad := filepath.Join(t.TempDir(), "bad.nv.hcl")
	os.WriteFile(bad, []byte("path = \"x\"\nitems {\n  port = 1\n}\n"), 0o600)
	if code, _, errOut := run("var", "put", "@"+bad); code != 1 || !strings.Contains(errOut, bad+":3:") {
		t.Fatalf("bad spec: %d %q", code, errOut)
	}
	if code, out, _ := run("var", "list", "app/"); code != 0 || !strings.Contains(out, "app/db") || !strings.Contains(out, "app/web") {
		t.Fatalf("list: %d %q", code, out)
	}
	if code, out, _ := run("var", "list", "zzz"); code != 0 || !strings.Contains(out, "No matching variables found") {
		t.Fatalf("empty list: %d %q", code, out)
	}
	if code, _, errOut := run("var", "put", "nomad/x", "k=v"); code != 1 || !strings.Contains(errOut, "reserved") {
		t.Fatalf("reserved path: %d %q", code, errOut)
	}
	if code, out, _ := run("var", "purge", "app/web"); code != 0 || !strings.Contains(out, `Successfully purged variable "app/web"!`) {
		t.Fatalf("purge: %d %q", code, out)
	}
	if code, _, errOut := run("var", "get", "app/web"); code != 1 || !strings.Contains(errOut, "variable not found") {
		t.Fatalf("get after purge: %d %q", code, errOut)
	}
	// var lock holds the lock while the command runs and exits with its code.
	code, out, errOut := run("var", "lock", "locks/job", "sh", "-c", "echo running; exit 3")
	if code != 3 || !strings.Contains(out, "running") {
		t.Fatalf("var lock: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := run("var", "lock", "locks/job", "true"); code != 0 {
		t.Fatalf("lock after release: %d %q", code, errOut)
	}
	// Rotation keeps old variables readable.
	if code, out, _ := run("operator", "root", "keyring", "rotate", "-full"); code != 0 || !strings.Contains(out, "active") {
		t.Fatalf("rotate: %d %q", code, out)
	}
	if _, out, _ := run("operator", "root", "keyring", "list"); strings.Count(out, "inactive") != 1 {
		t.Fatalf("keys after rotate: %q", out)
	}
	if _, out, _ := run("var", "get", "-item", "user", "app/db"); out != "admin\n" {
		t.Fatalf("get after rotate: %q", out)
	}
}

func TestVarInit(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "spec.nv.hcl")
	if code, out, _ := runCLI(nil, "var", "init", file); code != 0 || !strings.Contains(out, file) {
		t.Fatalf("init: %d %q", code, out)
	}
	src, _ := os.ReadFile(file)
	v, err := parseVarSpec(file, src)
	if err != nil || v.Items["key1"] != "value 1" {
		t.Fatalf("the written spec does not parse back: %+v %v", v, err)
	}
	if code, _, errOut := runCLI(nil, "var", "init", file); code != 1 || !strings.Contains(errOut, "already exists") {
		t.Fatalf("init over a file: %d %q", code, errOut)
	}
}
