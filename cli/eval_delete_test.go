package cli

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func evalDeleteAPI(t *testing.T, paused bool) *cannedAPI {
	c := readAPI(t)
	c.answers["GET /v1/operator/scheduler/configuration"] = structs.SchedulerConfigurationResponse{
		SchedulerConfig: &structs.SchedulerConfiguration{PauseEvalBroker: paused}}
	c.answers["DELETE /v1/evaluations"] = structs.EvalDeleteResponse{Count: 1}
	return c
}

func TestEvalDeleteByID(t *testing.T) {
	c := evalDeleteAPI(t, true)
	code, out, errOut := c.run("eval", "delete", evalID[:8])
	if code != 0 || out != "Successfully deleted 1 evaluation\n" {
		t.Fatalf("exit %d: %q %s", code, out, errOut)
	}
	var req structs.EvalDeleteRequest
	if err := json.Unmarshal([]byte(c.body("DELETE /v1/evaluations")[0]), &req); err != nil || len(req.EvalIDs) != 1 || req.EvalIDs[0] != evalID || req.Filter != "" {
		t.Fatalf("body %+v: %v", req, err)
	}
}

func TestEvalDeleteByFilter(t *testing.T) {
	c := evalDeleteAPI(t, true)
	withStdin(t, "n\n")
	code, out, _ := c.run("eval", "delete", "-filter", `Status == "complete"`)
	if code != 1 || !strings.Contains(out, "delete 1 evaluation?") || len(c.body("DELETE /v1/evaluations")) != 0 {
		t.Fatalf("declined: exit %d: %s", code, out)
	}
	q, _ := url.ParseQuery(c.query("GET /v1/evaluations")[0])
	if q.Get("filter") != `Status == "complete"` {
		t.Fatalf("list query %v", q)
	}
	code, out, errOut := c.run("eval", "delete", "-yes", "-filter", `Status == "complete"`)
	if code != 0 || !strings.Contains(out, "Successfully deleted 1 evaluation") {
		t.Fatalf("-yes: exit %d: %s %s", code, out, errOut)
	}
	var req structs.EvalDeleteRequest
	if err := json.Unmarshal([]byte(c.body("DELETE /v1/evaluations")[0]), &req); err != nil || req.Filter != `Status == "complete"` || len(req.EvalIDs) != 0 {
		t.Fatalf("body %+v: %v", req, err)
	}
}

func TestEvalDeleteRefusals(t *testing.T) {
	c := evalDeleteAPI(t, false)
	code, _, errOut := c.run("eval", "delete", evalID)
	if code != 1 || !strings.Contains(errOut, "not paused") || !strings.Contains(errOut, "-pause-eval-broker=true") {
		t.Fatalf("not paused: exit %d: %s", code, errOut)
	}
	for _, args := range [][]string{{}, {"-filter", "x", evalID}, {evalID, evalID}} {
		if code, _, errOut := c.run(append([]string{"eval", "delete"}, args...)...); code != 1 || errOut == "" {
			t.Errorf("%v: exit %d", args, code)
		}
	}
	if len(c.body("DELETE /v1/evaluations")) != 0 {
		t.Fatal("a refused deletion reached the API")
	}
}

// The confirmation counts only the evaluations the filter selects, even
// from an agent that ignores ?filter=.
func TestEvalDeleteFilterCountsOnlyMatches(t *testing.T) {
	c := evalDeleteAPI(t, true)
	withStdin(t, "n\n")
	if code, out, _ := c.run("eval", "delete", "-filter", `JobID == "other"`); code != 0 || !strings.Contains(out, "No evaluations match") {
		t.Fatalf("exit %d: %s", code, out)
	}
	if code, _, errOut := c.run("eval", "delete", "-filter", `JobID ==`); code != 1 || !strings.Contains(errOut, "invalid filter") {
		t.Fatalf("bad filter: exit %d: %s", code, errOut)
	}
	if len(c.body("DELETE /v1/evaluations")) != 0 {
		t.Fatal("deleted")
	}
}
