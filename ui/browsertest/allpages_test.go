package browsertest

import (
	"testing"
	"time"
)

// Every page of the UI, with a real job, allocation, node, evaluation and
// deployment of the dev agent behind it, renders without a console error,
// an uncaught exception or a CSP violation (OpenPage's check), and without
// falling to "Not found".
func TestEveryPageWithoutConsoleErrors(t *testing.T) {
	id := UniqueID("ui-every")
	dev.RunJob(t, sleeperJob(id, "every-page"))
	t.Cleanup(func() { dev.CLI(t, "job", "stop", "-purge", id) })
	allocs := dev.WaitRunning(t, id)
	var alloc struct{ NodeID, EvalID string }
	dev.GetJSON(t, "/v1/allocation/"+allocs[0], &alloc)
	var deps []struct{ ID string }
	dev.GetJSON(t, "/v1/job/"+id+"/deployments", &deps)
	dev.CLI(t, "var", "put", "ui-every/"+id, "k=v")
	t.Cleanup(func() { dev.CLI(t, "var", "purge", "ui-every/"+id) })

	pages := []string{
		"/ui/jobs",
		"/ui/jobs/" + id,
		"/ui/jobs/" + id + "/why-not",
		"/ui/allocations/" + allocs[0],
		"/ui/clients",
		"/ui/clients/" + alloc.NodeID,
		"/ui/topology",
		"/ui/evaluations",
		"/ui/evaluations/" + alloc.EvalID,
		"/ui/deployments",
		"/ui/servers",
		"/ui/variables",
		"/ui/variables/ui-every/" + id,
		"/ui/services",
		"/ui/services/" + id,
		"/ui/servers/" + serverName(t),
		"/ui/settings/tokens",
	}
	if len(deps) > 0 {
		pages = append(pages, "/ui/deployments/"+deps[0].ID)
	}
	for _, path := range pages {
		t.Run(path, func(t *testing.T) {
			p := OpenPage(t, path)
			// Give the page's queries time to answer and draw.
			time.Sleep(time.Second)
			if txt := p.Text("#main h1"); txt == "Not found" {
				t.Errorf("%s: the app has no page there", path)
			}
		})
	}
}

// serverName is the dev agent's serf member name (the servers page's
// per-member path).
func serverName(t *testing.T) string {
	var members struct{ Members []struct{ Name string } }
	dev.GetJSON(t, "/v1/agent/members", &members)
	if len(members.Members) == 0 {
		t.Fatal("no serf member")
	}
	return members.Members[0].Name
}
