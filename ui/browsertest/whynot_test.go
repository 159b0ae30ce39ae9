package browsertest

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// A group whose constraint no node satisfies: "Why not here?" shows the
// placement failure and, for the dev node, the failed constraint in the
// same words as `job plan -why-not-node`.
func TestWhyNotShowsFailedConstraint(t *testing.T) {
	id := UniqueID("ui-whynot")
	hcl := fmt.Sprintf(`job %q {
  datacenters = ["*"]
  group "g" {
    constraint {
      attribute = "${attr.kernel.name}"
      value     = "windows"
    }
    task "sleep" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "exec sleep 600"]
      }
    }
  }
}
`, id)
	path := t.TempDir() + "/job.hcl"
	writeFile(t, path, hcl)
	out, code := dev.CLIResult(t, "job", "run", path)
	if code != 2 || !strings.Contains(out, "failed to place") {
		t.Fatalf("job run: exit %d, want 2 (placement failure):\n%s", code, out)
	}
	t.Cleanup(func() { dev.CLIResult(t, "job", "stop", "-purge", id) })
	var nodes []struct{ ID, Name string }
	dev.GetJSON(t, "/v1/nodes", &nodes)
	if len(nodes) == 0 {
		t.Fatal("no nodes")
	}
	// What the CLI says about the node, word for word.
	cli, code := dev.CLIResult(t, "job", "plan", "-why-not-node", nodes[0].ID, path)
	want := `constraint "${attr.kernel.name} = windows": ${attr.kernel.name} is "linux"`
	if !strings.Contains(cli, want) {
		t.Fatalf("job plan -why-not-node (exit %d) does not say %q:\n%s", code, want, cli)
	}

	// Every node with its reasons, and the placement failure.
	p := OpenPage(t, "/ui/jobs/"+id+"/why-not")
	p.WaitText(".wn-failures", `Constraint "${attr.kernel.name} = windows": 1 nodes excluded by filter`)
	p.WaitText(`tr[data-node="`+nodes[0].ID+`"]`, want)
	p.WaitText(`tr[data-node="`+nodes[0].ID+`"]`, "not feasible")
	p.Screenshot("why-not")

	// One node's verdict, reached from the list.
	p.Click(`tr[data-node="` + nodes[0].ID + `"] a`)
	p.WaitText(".wn-verdict h3", `is not feasible for group "g":`)
	p.WaitText(".wn-verdict li.wn-failure", want)
	p.Screenshot("why-not-node")

	// The job page links to it.
	j := OpenPage(t, "/ui/jobs/"+id)
	j.Click(`a[href^="/ui/jobs/` + id + `/why-not"]`)
	j.WaitText(".wn-failures", `Constraint "${attr.kernel.name} = windows"`)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
