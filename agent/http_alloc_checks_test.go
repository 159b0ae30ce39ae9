package agent

import (
	"encoding/json"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/nomadish/nomadish/structs"
)

// fakeChecker is the agent's client answering check results.
type fakeChecker struct {
	fakeCtl
	results map[string]*structs.CheckQueryResult
}

var _ AllocChecker = (*fakeChecker)(nil)

func (f *fakeChecker) AllocChecks(allocID string) (map[string]*structs.CheckQueryResult, error) {
	f.calls = append(f.calls, "checks "+allocID)
	return f.results, f.err
}

func TestAllocChecksEndpoint(t *testing.T) {
	ck := &fakeChecker{fakeCtl: fakeCtl{fakeLogs: fakeLogs{nodeID: "n1"}}, results: map[string]*structs.CheckQueryResult{
		"c1": {ID: "c1", Mode: "healthiness", Status: "passing", StatusCode: 200, Output: "HTTP GET ok", Timestamp: 7,
			Group: "g", Task: "t", Service: "web", Check: "alive"}}}
	s, _ := logsServer("n1", nil)
	s.Logs = ck
	for _, path := range []string{"/v1/client/allocation/" + logsAllocID + "/checks", "/v1/allocation/" + logsAllocID + "/checks"} {
		rec := do(t, s, "GET", path, "")
		wantStatus(t, rec, 200, "")
		// Nomad's shape, through the official client's type.
		var got api.AllocCheckStatuses
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		c := got["c1"]
		if c.Check != "alive" || c.Status != "passing" || c.StatusCode != 200 || c.Service != "web" || c.Task != "t" ||
			c.Group != "g" || c.Mode != "healthiness" || c.Timestamp != 7 {
			t.Fatalf("%s: %s", path, rec.Body.String())
		}
	}
	wantStatus(t, do(t, s, "GET", "/v1/client/allocation/00000000-0000-4000-8000-00000000dead/checks", ""), 404, "unknown allocation")
}
