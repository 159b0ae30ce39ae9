package agent

import (
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// TestOfficialClientEvalDelete pauses the eval broker through the
// scheduler configuration and deletes evaluations with Evaluations().Delete
// and DeleteOpts, as `nomad eval delete` does; refused while unpaused.
func TestOfficialClientEvalDelete(t *testing.T) {
	_, c := devAgent(t)
	op := c.Operator()
	setPause := func(p bool) {
		t.Helper()
		cfg, _, err := op.SchedulerGetConfiguration(nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg.SchedulerConfig.PauseEvalBroker = p
		if _, _, err := op.SchedulerSetConfiguration(cfg.SchedulerConfig, nil); err != nil {
			t.Fatal(err)
		}
		got, _, err := op.SchedulerGetConfiguration(nil)
		if err != nil || got.SchedulerConfig.PauseEvalBroker != p {
			t.Fatalf("PauseEvalBroker = %+v, %v", got, err)
		}
	}

	if _, err := c.Evaluations().Delete([]string{"x"}, nil); err == nil || !strings.Contains(err.Error(), "must be paused") {
		t.Fatalf("delete unpaused: %v", err)
	}
	setPause(true)
	j1, j2 := batchJob("del-a"), batchJob("del-b")
	r1, _, err := c.Jobs().Register(j1, nil)
	if err != nil {
		t.Fatal(err)
	}
	r2, _, err := c.Jobs().Register(j2, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Paused: nothing schedules them.
	for _, id := range []string{r1.EvalID, r2.EvalID} {
		if ev, _, err := c.Evaluations().Info(id, nil); err != nil || ev.Status != "pending" {
			t.Fatalf("eval %s: %+v, %v", id, ev, err)
		}
	}
	if wm, err := c.Evaluations().Delete([]string{r1.EvalID}, nil); err != nil || wm.LastIndex == 0 {
		t.Fatalf("delete by ID: %+v, %v", wm, err)
	}
	if _, _, err := c.Evaluations().Info(r1.EvalID, nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("deleted eval still readable: %v", err)
	}
	resp, _, err := c.Evaluations().DeleteOpts(&api.EvalDeleteRequest{Filter: `JobID == "del-b"`}, nil)
	if err != nil || resp.Count != 1 {
		t.Fatalf("delete by filter: %+v, %v", resp, err)
	}
	setPause(false)
}
