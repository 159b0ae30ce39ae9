package browsertest

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The evaluations list shows a job's evaluation; the filter (go-bexpr,
// applied by the server) narrows it to that job; a click opens the
// evaluation with its allocation.
func TestListsEvaluations(t *testing.T) {
	id := UniqueID("ui-evals")
	dev.RunJob(t, webJob(id, "a", 1))
	allocs := dev.WaitRunning(t, id)
	p := OpenPage(t, "/ui/evaluations")
	p.WaitText("#main table tbody", id)
	p.Run(chromedp.SetValue("#eval-filter", fmt.Sprintf(`JobID == %q`, id), chromedp.ByQuery))
	p.Click(`#main form button[type="submit"]`)
	p.poll("only the job's evaluations", fmt.Sprintf(`(() => { const rows = Array.from(document.querySelectorAll("#main tbody tr"));
		return rows.length > 0 && rows.every((r) => r.innerText.includes(%q)); })()`, id))
	if !strings.Contains(p.location(), "filter=") {
		t.Errorf("the filter is not kept in the URL: %s", p.location())
	}
	p.Screenshot("evaluations")
	p.Click(`#main tbody tr a[href^="/ui/evaluations/"]`)
	p.WaitText("#main h1", "Evaluation")
	p.WaitText("#main", "job-register")
	p.WaitText("#main table", allocs[0][:8])
	dev.CLI(t, "job", "stop", "-purge", id)
}

// An evaluation whose placement failed says why: the constraint that
// filtered every node, and the blocked evaluation it left.
func TestListsEvaluationPlacementFailure(t *testing.T) {
	id := UniqueID("ui-evalfail")
	dev.RunJob(t, strings.Replace(webJob(id, "a", 1), `  group "web" {`, `  constraint {
    attribute = "${attr.kernel.name}"
    value     = "plan9"
  }
  group "web" {`, 1))
	var evals []struct {
		ID             string
		TriggeredBy    string
		FailedTGAllocs map[string]any
	}
	evalID := ""
	for deadline := time.Now().Add(60 * time.Second); evalID == ""; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no evaluation of %s with failed placements: %+v", id, evals)
		}
		dev.GetJSON(t, "/v1/job/"+id+"/evaluations", &evals)
		for _, e := range evals {
			if len(e.FailedTGAllocs) > 0 {
				evalID = e.ID
			}
		}
	}
	p := OpenPage(t, "/ui/evaluations?currentEval="+evalID)
	p.WaitText(`#main .failed-tg[data-group="web"]`, "Constraint filtered")
	p.WaitText(`#main .failed-tg[data-group="web"]`, "plan9")
	p.WaitText("#main .facts", "Blocked evaluation")
	p.Screenshot("evaluation")
	dev.CLI(t, "job", "stop", "-purge", id)
}

// The servers page marks the leader among the raft peers and the serf
// members.
func TestListsServersLeader(t *testing.T) {
	var leader string
	dev.GetJSON(t, "/v1/status/leader", &leader)
	p := OpenPage(t, "/ui/servers")
	p.WaitText("#main", leader)
	p.WaitText(`#main table[aria-labelledby="raft-h"] tr.is-leader`, "leader")
	p.WaitText(`#main table[aria-labelledby="serf-h"] tr.is-leader`, "alive")
	p.Screenshot("servers")
	p.Click(`#main tr.is-leader a[href^="/ui/servers/"]`)
	p.WaitText("#main h2", "Tags")
	p.WaitText("#main table", "region")
}

// A variable put with the CLI is listed; its page hides the value until
// Show is clicked; an edit through the form reaches the API.
func TestListsVariables(t *testing.T) {
	path := "ui/" + UniqueID("var")
	dev.CLI(t, "var", "put", path, "username=alice", "password=hunter2")
	p := OpenPage(t, "/ui/variables")
	p.WaitText("#main table", path)
	p.Screenshot("variables")
	p.Click(fmt.Sprintf(`#main tr[data-var=%q] a`, path))
	p.WaitText("#main h1", path)
	p.WaitText(`#main tr[data-item="password"]`, "password")
	if txt := p.Text("#main table"); strings.Contains(txt, "hunter2") {
		t.Fatalf("the value shows before Show is clicked: %q", txt)
	}
	p.Click(`#main tr[data-item="password"] button`)
	p.WaitText(`#main tr[data-item="password"]`, "hunter2")
	p.Screenshot("variable")

	// Edit: change a value and save; the write is checked against the index read.
	p.Click(`#main .toolbar button:not(.danger)`)
	p.Run(chromedp.WaitVisible(`.var-form .var-value`, chromedp.ByQuery))
	var n int
	p.Eval(`(() => { const rows = Array.from(document.querySelectorAll(".var-form .var-item"));
		const r = rows.find((x) => x.querySelector(".var-key").value === "username");
		r.querySelector(".var-value").value = "bob"; return rows.length; })()`, &n)
	if n != 2 {
		t.Fatalf("the edit form has %d items, want 2", n)
	}
	p.Click(`.var-form button[type="submit"]`)
	var v struct{ Items map[string]string }
	for deadline := time.Now().Add(30 * time.Second); v.Items["username"] != "bob"; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("variable %s not edited through the page: %+v", path, v.Items)
		}
		dev.GetJSON(t, "/v1/var/"+path, &v)
	}
	if v.Items["password"] != "hunter2" {
		t.Errorf("the edit lost the other item: %+v", v.Items)
	}
	p.Click(`#main .toolbar button.danger`)
	p.WaitText("#main h1", "Variables")
	if _, code := dev.CLIResult(t, "var", "get", path); code == 0 {
		t.Errorf("variable %s still exists after Delete", path)
	}
}

// A job's nomad-provider service is listed with its tags; its page shows
// the instance with the allocation and port.
func TestListsServices(t *testing.T) {
	id := UniqueID("ui-svc")
	name := strings.ReplaceAll(id, "_", "-")
	dev.RunJob(t, strings.Replace(webJob(id, "a", 1), `    task "sleep" {`, fmt.Sprintf(`    network {
      port "http" {}
    }
    service {
      name     = %q
      provider = "nomad"
      port     = "http"
      tags     = ["ui-test"]
    }
    task "sleep" {`, name), 1))
	allocs := dev.WaitRunning(t, id)
	p := OpenPage(t, "/ui/services")
	p.WaitText("#main table", name)
	p.WaitText(fmt.Sprintf(`#main tr[data-service=%q]`, name), "ui-test")
	p.Screenshot("services")
	p.Click(fmt.Sprintf(`#main tr[data-service=%q] a`, name))
	p.WaitText("#main h1", name)
	p.WaitText("#main table tbody", allocs[0][:8])
	p.Screenshot("service")
	dev.CLI(t, "job", "stop", "-purge", id)
	p.WaitText("#main table tbody", "No instances")
}

// A service job's deployment is listed; its page shows the canary group
// and Promote, which promotes it through the API.
func TestListsDeployments(t *testing.T) {
	id := UniqueID("ui-deps")
	dev.RunJob(t, canaryJob(id, "a"))
	dev.WaitRunning(t, id)
	dev.RunJob(t, canaryJob(id, "b"))
	var dep struct {
		ID         string
		Status     string
		TaskGroups map[string]struct {
			Promoted       bool
			PlacedCanaries []string
		}
	}
	for deadline := time.Now().Add(60 * time.Second); dep.ID == "" || len(dep.TaskGroups["web"].PlacedCanaries) == 0; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no canary deployment of %s: %+v", id, dep)
		}
		dev.GetJSON(t, "/v1/job/"+id+"/deployment", &dep)
	}
	p := OpenPage(t, "/ui/deployments")
	p.WaitText(fmt.Sprintf(`#main tr[data-deployment=%q]`, dep.ID), id)
	p.Screenshot("deployments")
	p.Click(fmt.Sprintf(`#main tr[data-deployment=%q] a[href^="/ui/deployments/"]`, dep.ID))
	p.WaitText(`#main tr[data-group="web"]`, "1 / 1")
	p.WaitText("#main table", "yes") // the canary allocation
	p.poll("the canary healthy", `Array.from(document.querySelectorAll("#main tbody tr")).some((r) => r.innerText.includes("healthy") && !r.innerText.includes("unhealthy"))`)
	p.Screenshot("deployment")
	p.Click(`#main tr[data-group="web"] button`)
	for deadline := time.Now().Add(60 * time.Second); !dep.TaskGroups["web"].Promoted; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("deployment of %s not promoted after 60s: %+v", id, dep)
		}
		dev.GetJSON(t, "/v1/deployment/"+dep.ID, &dep)
	}
	p.poll("promoted on the page", `document.querySelector('#main tr[data-group="web"]').cells[6].innerText === "yes"`)
	dev.CLI(t, "job", "stop", "-purge", id)
}

// Load more follows the server's next token: with one evaluation a page,
// a job's two evaluations take two pages.
func TestListsEvaluationsLoadMore(t *testing.T) {
	id := UniqueID("ui-evalpage")
	dev.RunJob(t, webJob(id, "a", 1))
	dev.RunJob(t, webJob(id, "b", 1))
	var evals []struct{ ID string }
	for deadline := time.Now().Add(30 * time.Second); len(evals) < 2; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("job %s has %d evaluations, want 2", id, len(evals))
		}
		dev.GetJSON(t, "/v1/job/"+id+"/evaluations", &evals)
	}
	p := OpenPage(t, "/ui/evaluations?per_page=1&filter="+url.QueryEscape(fmt.Sprintf(`JobID == %q`, id)))
	rows := `document.querySelectorAll("#main tbody tr[data-eval]").length`
	p.poll("one evaluation on the first page", rows+" === 1")
	p.Click(`#main button:not([type="submit"])`)
	p.poll("a second evaluation after Load more", rows+" === 2")
	dev.CLI(t, "job", "stop", "-purge", id)
}

// Fail on a deployment's page fails it through the API.
func TestListsDeploymentFail(t *testing.T) {
	id := UniqueID("ui-depfail")
	dev.RunJob(t, canaryJob(id, "a"))
	dev.WaitRunning(t, id)
	dev.RunJob(t, canaryJob(id, "b"))
	var dep struct {
		ID         string
		JobVersion uint64
		Status     string
	}
	for deadline := time.Now().Add(60 * time.Second); dep.JobVersion != 1; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no deployment of version 1 of %s: %+v", id, dep)
		}
		dev.GetJSON(t, "/v1/job/"+id+"/deployment", &dep)
	}
	p := OpenPage(t, "/ui/deployments/"+dep.ID)
	p.WaitText("#main .facts", "running")
	p.Click(`#main .toolbar button.danger`)
	for deadline := time.Now().Add(60 * time.Second); dep.Status != "failed"; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("deployment %s not failed after 60s: %+v", dep.ID, dep)
		}
		dev.GetJSON(t, "/v1/deployment/"+dep.ID, &dep)
	}
	p.WaitText("#main .facts", "failed")
	p.poll("Fail hidden once failed", `document.querySelector("#main .toolbar button.danger").hidden`)
	dev.CLI(t, "job", "stop", "-purge", id)
}
