package agent

import (
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// TestOfficialClientJobEvaluate: Jobs().EvaluateWithOpts creates an
// evaluation of the job through raft; unknown jobs are 404s.
func TestOfficialClientJobEvaluate(t *testing.T) {
	_, c := devAgent(t)
	jobs := c.Jobs()
	if _, _, err := jobs.Register(batchJob("again"), nil); err != nil {
		t.Fatal(err)
	}
	evalID, wm, err := jobs.EvaluateWithOpts("again", api.EvalOptions{}, nil)
	if err != nil || evalID == "" || wm.LastIndex == 0 {
		t.Fatalf("evaluate = %q, %+v, %v", evalID, wm, err)
	}
	ev, _, err := c.Evaluations().Info(evalID, nil)
	if err != nil || ev.JobID != "again" || ev.TriggeredBy != "job-register" {
		t.Fatalf("eval = %+v, %v", ev, err)
	}
	if _, _, err := jobs.ForceEvaluate("nope", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("unknown job: %v", err)
	}
}
