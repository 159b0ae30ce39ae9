package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// `scaling policy list` and `info` against a real in-process server: a
// job with a scaling block has one horizontal policy targeting its group;
// -job filters; an unknown ID fails with the server's 404.
func TestScalingPolicyCommands(t *testing.T) {
	env := varServer(t) // a real dev server (var_test.go)
	run := func(args ...string) (int, string, string) { return runCLI(env, args...) }
	job := filepath.Join(t.TempDir(), "web.nomad.hcl")
	if err := os.WriteFile(job, []byte(`job "web" {
  group "cache" {
    scaling {
      min = 1
      max = 5
      policy {
        cooldown = "1m"
      }
    }
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/true"
      }
    }
  }
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run("job", "run", "-detach", job); code != 0 {
		t.Fatalf("job run: %d %q %q", code, out, errOut)
	}
	code, out, errOut := run("scaling", "policy", "list")
	if code != 0 || !strings.Contains(out, "horizontal") || !strings.Contains(out, "Namespace:default,Job:web,Group:cache") {
		t.Fatalf("list: %d %q %q", code, out, errOut)
	}
	code, out, _ = run("scaling", "policy", "list", "-json")
	var stubs []*structs.ScalingPolicyListStub
	if code != 0 || json.Unmarshal([]byte(out), &stubs) != nil || len(stubs) != 1 || !stubs[0].Enabled {
		t.Fatalf("list -json: %d %q", code, out)
	}
	if code, out, _ := run("scaling", "policy", "list", "-job", "other"); code != 0 || out != "No policies found\n" {
		t.Fatalf("list -job other: %d %q", code, out)
	}
	code, out, errOut = run("scaling", "policy", "info", stubs[0].ID)
	if code != 0 || !strings.Contains(out, "Min") || !strings.Contains(out, "= 5") || !strings.Contains(out, `"cooldown": "1m"`) {
		t.Fatalf("info: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := run("scaling", "policy", "info", "nope"); code != 1 || !strings.Contains(errOut, "not found") {
		t.Fatalf("info of an unknown policy: %d %q", code, errOut)
	}
}
