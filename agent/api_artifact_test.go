package agent

import (
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// Artifacts survive the API both ways with Nomad's field names, through
// the official client: parsed from HCL, registered as JSON and read back;
// an escaping destination sent as JSON is a 400 that registers nothing.
func TestOfficialClientArtifacts(t *testing.T) {
	_, c := devAgent(t)
	parsed, err := c.Jobs().ParseHCL(`job "art" {
  type = "batch"
  group "g" {
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
      artifact {
        source = "https://example.com/app.tar.gz"
        options { checksum = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" }
        headers { User-Agent = "nomad-${NOMAD_JOB_ID}" }
        chown = true
      }
    }
  }
}`, true)
	if err != nil {
		t.Fatal(err)
	}
	a := parsed.TaskGroups[0].Tasks[0].Artifacts
	if len(a) != 1 || *a[0].GetterSource != "https://example.com/app.tar.gz" || *a[0].RelativeDest != "local/" ||
		*a[0].GetterMode != "any" || !a[0].Chown || a[0].GetterHeaders["User-Agent"] != "nomad-${NOMAD_JOB_ID}" ||
		!strings.HasPrefix(a[0].GetterOptions["checksum"], "sha256:") {
		t.Fatalf("parsed artifacts: %+v", a)
	}

	job := api.NewBatchJob("art", "art", "global", 50)
	file := "file"
	task := api.NewTask("t", "raw_exec").SetConfig("command", "/bin/true")
	src, dest := "https://example.com/tool", "local/bin/tool"
	task.Artifacts = []*api.TaskArtifact{{GetterSource: &src, GetterMode: &file, RelativeDest: &dest,
		GetterHeaders: map[string]string{"X-Token": "t"}}}
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	got, _, err := c.Jobs().Info("art", nil)
	if err != nil {
		t.Fatal(err)
	}
	ga := got.TaskGroups[0].Tasks[0].Artifacts
	if len(ga) != 1 || *ga[0].GetterSource != src || *ga[0].GetterMode != "file" || *ga[0].RelativeDest != dest || ga[0].GetterHeaders["X-Token"] != "t" {
		t.Fatalf("read back: %+v", ga)
	}

	evil := "../../etc"
	task.Artifacts[0].RelativeDest = &evil
	job.ID, job.Name = ptr("art-evil"), ptr("art-evil")
	_, _, err = c.Jobs().Register(job, nil)
	if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), `destination "../../etc" escapes the allocation directory`) {
		t.Fatalf("escaping destination: %v", err)
	}
	if _, _, err := c.Jobs().Info("art-evil", nil); err == nil {
		t.Fatal("the refused job was registered")
	}
}
