package browsertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// webJob is a raw_exec service job of one group "web" (count, with a
// scaling block of 1..5) whose task has an env value FOO.
func webJob(id, foo string, count int) string {
	return fmt.Sprintf(`job %q {
  datacenters = ["*"]
  group "web" {
    count = %d
    scaling {
      min = 1
      max = 5
    }
    task "sleep" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "exec sleep 600"]
      }
      env {
        FOO = %q
      }
      resources {
        cpu    = 50
        memory = 32
      }
    }
  }
}
`, id, count, foo)
}

// jobState is what the API says of a job.
type jobState struct {
	Stop       bool
	Status     string
	Version    uint64
	TaskGroups []struct {
		Count int
		Tasks []struct{ Env map[string]string }
	}
}

// waitJob polls GET /v1/job/<id> for up to 60 s until ok holds.
func waitJob(t *testing.T, id, what string, ok func(jobState) bool) jobState {
	t.Helper()
	var j jobState
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		j = jobState{}
		dev.GetJSON(t, "/v1/job/"+id, &j)
		if ok(j) {
			return j
		}
	}
	t.Fatalf("job %s: not %s after 60s: %+v", id, what, j)
	return j
}

// runningAllocs counts the job's allocations the API says run.
func runningAllocs(t *testing.T, id string) int {
	var allocs []struct{ ClientStatus, DesiredStatus string }
	dev.GetJSON(t, "/v1/job/"+id+"/allocations", &allocs)
	n := 0
	for _, a := range allocs {
		if a.DesiredStatus == "run" && a.ClientStatus == "running" {
			n++
		}
	}
	return n
}

// The jobs list shows a job just run, on its own row, as running.
func TestJobsPageShowsRunningJob(t *testing.T) {
	id := UniqueID("ui-jobs")
	dev.RunJob(t, webJob(id, "a", 1))
	dev.WaitRunning(t, id)
	p := OpenPage(t, "/ui/jobs")
	p.poll(id+"'s row says running", fmt.Sprintf(
		`Array.from(document.querySelectorAll("#main tbody tr")).some((r) => r.innerText.includes(%q) && r.innerText.includes("running"))`, id))
	p.Screenshot("jobs")
	dev.CLI(t, "job", "stop", "-purge", id)
}

// The job page shows the job running; Stop job (confirmed) stops it: the
// API says Stop and dead, and the page follows to dead. Start job runs it
// again.
func TestJobPageStopsJob(t *testing.T) {
	id := UniqueID("ui-stop")
	dev.RunJob(t, webJob(id, "a", 1))
	allocs := dev.WaitRunning(t, id)
	p := OpenPage(t, "/ui/jobs/"+id)
	p.WaitText("#overview .facts", "running")
	p.WaitText("#overview tbody.allocs", allocs[0][:8])
	p.WaitText("#overview tbody", "sleep (raw_exec; 50 MHz, 32 MiB)")
	p.Screenshot("job")
	p.Click(".job-head button.danger")
	waitJob(t, id, "stopped and dead", func(j jobState) bool { return j.Stop && j.Status == "dead" })
	p.WaitText(".job-head", "dead")
	p.WaitText(".job-head", "Start job")
	p.Click(".job-head button.primary")
	waitJob(t, id, "started again", func(j jobState) bool { return !j.Stop })
	dev.WaitRunning(t, id)
	p.WaitText(".job-head", "running")
	dev.CLI(t, "job", "stop", "-purge", id)
}

// Two versions differing in one env value: the versions section shows that
// field's change between them; reverting to version 0 brings it back.
func TestJobVersionsDiffAndRevert(t *testing.T) {
	id := UniqueID("ui-versions")
	dev.RunJob(t, webJob(id, "first-value", 1))
	waitJob(t, id, "at version 0", func(j jobState) bool { return j.Status != "" })
	dev.RunJob(t, webJob(id, "second-value", 1))
	waitJob(t, id, "at version 1", func(j jobState) bool { return j.Version == 1 })
	p := OpenPage(t, "/ui/jobs/"+id+"#versions")
	p.WaitText("#versions .diff-view", "Task web / sleep")
	p.poll("the diff row of Env.FOO", `Array.from(document.querySelectorAll("#versions .diff-view tr")).some((r) =>
		r.innerText.includes("Env.FOO") && r.innerText.includes("first-value") && r.innerText.includes("second-value"))`)
	if txt := p.Text("#versions .diff-view"); strings.Contains(txt, "SubmitTime") || strings.Contains(txt, "ModifyIndex") {
		t.Errorf("the diff shows bookkeeping fields:\n%s", txt)
	}
	p.Screenshot("job-versions")
	p.Click(`#versions button[aria-label="Revert to version 0"]`)
	j := waitJob(t, id, "reverted to version 0's spec", func(j jobState) bool { return j.Version == 2 })
	if got := j.TaskGroups[0].Tasks[0].Env["FOO"]; got != "first-value" {
		t.Errorf("after the revert FOO = %q, want first-value", got)
	}
	p.WaitText("#versions tbody", "2 (current)")
	dev.CLI(t, "job", "stop", "-purge", id)
}

// Edit + plan: the job run from a file shows its HCL as submitted (a
// unique comment line, "version 0"); the count edited in that HCL shows in
// the plan's diff with the group's placements, and nothing else does (the
// -var flag it was run with is kept: FOO stays "from-flag"); Run submits
// the edited text as version 1's source.
func TestJobDefinitionPlanAndRun(t *testing.T) {
	id := UniqueID("ui-plan")
	marker := "# submitted by TestJobDefinitionPlanAndRun " + id
	hcl := marker + "\n" + strings.Replace(webJob(id, "${var.foo}", 1), `job `, "variable \"foo\" {\n  default = \"from-default\"\n}\n\njob ", 1)
	path := filepath.Join(t.TempDir(), "job.nomad.hcl")
	if err := os.WriteFile(path, []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	dev.CLI(t, "job", "run", "-detach", "-var", "foo=from-flag", path)
	dev.WaitRunning(t, id)
	p := OpenPage(t, "/ui/jobs/"+id+"#definition")
	p.poll("the submitted HCL in the text area", fmt.Sprintf(`document.getElementById("job-spec").value.includes(%q)`, marker))
	p.WaitText("#job-spec-source", "HCL as submitted, version 0")
	var ok bool
	p.Eval(`(() => { const a = document.getElementById("job-spec");
		a.value = a.value.replace("count = 1", "count = 3");
		a.dispatchEvent(new Event("input", { bubbles: true })); return true; })()`, &ok)
	p.Click(`#definition button[type="submit"]`)
	p.poll("the plan's Count row 1 -> 3", `Array.from(document.querySelectorAll("#definition .plan-out tr")).some((r) =>
		r.innerText.includes("Count") && r.innerText.includes("1") && r.innerText.includes("3"))`)
	p.WaitText("#definition .plan-out .updates", "2 create")
	if txt := p.Text("#definition .plan-out"); strings.Contains(txt, "from-default") {
		t.Errorf("the plan lost the -var flag (FOO from the default):\n%s", txt)
	}
	p.Screenshot("job-plan")
	p.Click(`#definition .plan-form button:not([type="submit"]):not([disabled])`)
	j := waitJob(t, id, "at count 3", func(j jobState) bool { return len(j.TaskGroups) == 1 && j.TaskGroups[0].Count == 3 })
	if foo := j.TaskGroups[0].Tasks[0].Env["FOO"]; foo != "from-flag" {
		t.Errorf("after the run FOO = %q, want from-flag", foo)
	}
	var sub struct {
		Source        string
		Format        string
		VariableFlags map[string]string
	}
	dev.GetJSON(t, "/v1/job/"+id+"/submission?version=1", &sub)
	if !strings.Contains(sub.Source, marker) || !strings.Contains(sub.Source, "count = 3") || sub.Format != "hcl2" || sub.VariableFlags["foo"] != "from-flag" {
		t.Errorf("version 1's submission %+v, want the edited HCL with foo=from-flag", sub)
	}
	p.WaitText("#job-spec-source", "HCL as submitted, version 1")
	dev.CLI(t, "job", "stop", "-purge", id)
}

// A job registered through the API without its source: the definition is
// its JSON, and says so.
func TestJobDefinitionJSONWithoutSource(t *testing.T) {
	id := UniqueID("ui-json")
	var job map[string]any
	postJSON(t, "/v1/jobs/parse", map[string]any{"JobHCL": webJob(id, "json", 1), "Canonicalize": true}, &job)
	postJSON(t, "/v1/jobs", map[string]any{"Job": job}, nil)
	p := OpenPage(t, "/ui/jobs/"+id+"#definition")
	p.poll("the job's JSON in the text area", `document.getElementById("job-spec").value.includes('"Count": 1,')`)
	p.WaitText("#job-spec-source", "JSON of version 0")
	dev.CLI(t, "job", "stop", "-purge", id)
}

// postJSON sends body to the agent and decodes the answer into out (nil:
// ignored); it fails t on a non-2xx answer.
func postJSON(t *testing.T, path string, body, out any) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(dev.Addr+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("POST %s: %s: %s", path, resp.Status, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("POST %s: %v", path, err)
		}
	}
}

// Scale from 1 to 2: the API places a second allocation and the page
// lists two running ones.
func TestJobScaleGroup(t *testing.T) {
	id := UniqueID("ui-scale")
	dev.RunJob(t, webJob(id, "a", 1))
	dev.WaitRunning(t, id)
	p := OpenPage(t, "/ui/jobs/"+id)
	p.poll("the scale input at 1", `document.getElementById("scale-web")?.value === "1"`)
	var ok bool
	p.Eval(`(() => { const i = document.getElementById("scale-web"); i.value = "2";
		i.dispatchEvent(new Event("input", { bubbles: true })); return true; })()`, &ok)
	p.Click(`#overview form.scale button`)
	waitJob(t, id, "at count 2", func(j jobState) bool { return j.TaskGroups[0].Count == 2 })
	for deadline := time.Now().Add(60 * time.Second); runningAllocs(t, id) < 2; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("job %s: not 2 running allocations after 60s", id)
		}
	}
	p.poll("two running allocations on the page", `Array.from(document.querySelectorAll("#overview tbody.allocs tr"))
		.filter((r) => r.innerText.includes("running")).length === 2`)
	p.Screenshot("job-scaled")
	dev.CLI(t, "job", "stop", "-purge", id)
}

// canaryJob is webJob with one canary per update, healthy from its task
// states after a second.
func canaryJob(id, foo string) string {
	return strings.Replace(webJob(id, foo, 1), `    count = 1
`, `    count = 1
    update {
      canary           = 1
      health_check     = "task_states"
      min_healthy_time = "1s"
      healthy_deadline = "1m"
    }
`, 1)
}

// A changed job with a canary: the deployments section shows the group's
// canary and Promote; a click promotes it (the API says so); the
// evaluations section lists the job's evaluations.
func TestJobDeploymentPromoteAndEvals(t *testing.T) {
	id := UniqueID("ui-deploy")
	dev.RunJob(t, canaryJob(id, "a"))
	dev.WaitRunning(t, id)
	dev.RunJob(t, canaryJob(id, "b"))
	p := OpenPage(t, "/ui/jobs/"+id+"#deployments")
	p.WaitText("#deployments", "of version 1")
	p.poll("one healthy canary of one", `Array.from(document.querySelectorAll("#deployments tbody tr")).some((r) =>
		r.innerText.includes("web") && r.innerText.includes("1 / 1") && r.cells[3]?.innerText === "1")`)
	p.Screenshot("job-deployments")
	p.Click(`#deployments button.primary`)
	var dep struct {
		Status     string
		TaskGroups map[string]struct{ Promoted bool }
	}
	for deadline := time.Now().Add(60 * time.Second); !dep.TaskGroups["web"].Promoted; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("deployment of %s not promoted after 60s: %+v", id, dep)
		}
		dev.GetJSON(t, "/v1/job/"+id+"/deployment", &dep)
	}
	p.poll("the group promoted on the page", `Array.from(document.querySelectorAll("#deployments tbody tr")).some((r) =>
		r.innerText.includes("web") && r.cells[6]?.innerText === "yes")`)
	p.Click(`a[href="#evaluations"]`)
	p.WaitText("#evaluations tbody", "job-register")
	p.WaitText("#evaluations tbody", "complete")
	p.Screenshot("job-evaluations")
	dev.CLI(t, "job", "stop", "-purge", id)
}

// A job no node can run: its evaluation's placement failures name the
// failed constraint, on the evaluations section and in a plan.
func TestJobEvaluationsShowPlacementFailures(t *testing.T) {
	id := UniqueID("ui-unplaceable")
	dev.RunJob(t, strings.Replace(webJob(id, "a", 1), `  group "web" {`, `  constraint {
    attribute = "${attr.kernel.name}"
    value     = "plan9"
  }
  group "web" {`, 1))
	p := OpenPage(t, "/ui/jobs/"+id+"#evaluations")
	p.WaitText("#evaluations tbody", "nodes evaluated")
	p.WaitText("#evaluations tbody", "plan9")
	p.Click(`a[href="#definition"]`)
	p.poll("the job's spec in the text area", `document.getElementById("job-spec").value.includes('"plan9"')`)
	p.Click(`#definition button[type="submit"]`)
	p.WaitText("#definition .plan-out", "Placement failures")
	p.WaitText("#definition .plan-out", "plan9")
	dev.CLI(t, "job", "stop", "-purge", id)
}
