package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/structs"
)

func TestJobEval(t *testing.T) {
	c := readAPI(t)
	c.answers["PUT /v1/job/web/evaluate"] = structs.JobRegisterResponse{EvalID: evalID, EvalCreateIndex: 7}
	code, out, errOut := c.run("job", "eval", "-detach", "web")
	if code != 0 || out != "Created eval ID: \""+shortID(evalID, false)+"\"\n" {
		t.Fatalf("exit %d: %q %s", code, out, errOut)
	}
	var req structs.JobEvaluateRequest
	if err := json.Unmarshal([]byte(c.body("PUT /v1/job/web/evaluate")[0]), &req); err != nil || req.JobID != "web" || req.EvalOptions.ForceReschedule {
		t.Fatalf("body %+v: %v", req, err)
	}
	// Monitored: the (complete) eval is followed to its end.
	code, out, errOut = c.run("job", "eval", "-force-reschedule", "web")
	if code != 0 || !strings.Contains(out, evalID[:8]) || !strings.Contains(out, "complete") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	if err := json.Unmarshal([]byte(c.body("PUT /v1/job/web/evaluate")[1]), &req); err != nil || !req.EvalOptions.ForceReschedule {
		t.Fatalf("body %+v: %v", req, err)
	}
	// Unknown job.
	if code, _, errOut := c.run("job", "eval", "nope"); code != 1 || errOut == "" {
		t.Fatalf("unknown job: exit %d %q", code, errOut)
	}
}
