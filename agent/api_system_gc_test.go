package agent

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// TestOfficialClientSystemGC: a batch job run to completion on a dev agent
// is gone from the API (job, allocation, evaluation) after the official
// client's System().GarbageCollect(); ReconcileSummaries answers too.
func TestOfficialClientSystemGC(t *testing.T) {
	_, c := devAgent(t)
	job := api.NewBatchJob("gc", "gc", "global", 50)
	job.Datacenters = []string{"dc1"}
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(api.NewTask("hi", "raw_exec").
		SetConfig("command", "/bin/sh").SetConfig("args", []string{"-c", "echo hi"})))
	resp, _, err := c.Jobs().Register(job, nil)
	if err != nil {
		t.Fatal(err)
	}
	var allocID string
	waitFor(t, 20*time.Second, "the job to be dead", func() error {
		allocs, _, err := c.Jobs().Allocations("gc", false, nil)
		if err != nil || len(allocs) != 1 {
			return fmt.Errorf("allocs %v: %v", allocs, err)
		}
		allocID = allocs[0].ID
		j, _, err := c.Jobs().Info("gc", nil)
		if err != nil || *j.Status != "dead" {
			return fmt.Errorf("job: %v", err)
		}
		return nil
	})
	if err := c.System().GarbageCollect(); err != nil {
		t.Fatalf("GarbageCollect: %v", err)
	}
	if _, _, err := c.Jobs().Info("gc", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("job after GC: %v, want 404", err)
	}
	if _, _, err := c.Allocations().Info(allocID, nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("alloc after GC: %v, want 404", err)
	}
	if _, _, err := c.Evaluations().Info(resp.EvalID, nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("eval after GC: %v, want 404", err)
	}
	if err := c.System().ReconcileSummaries(); err != nil {
		t.Fatalf("ReconcileSummaries: %v", err)
	}
}

// TestSystemGCNeedsManagement: with ACLs on, an anonymous forced GC is
// refused with 403; the bootstrap (management) token may.
func TestSystemGCNeedsManagement(t *testing.T) {
	_, c := serverAgent(t, true)
	waitRootKey(t, c)
	if err := c.System().GarbageCollect(); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("anonymous GC: %v, want 403", err)
	}
	root, _, err := c.ACLTokens().Bootstrap(nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetSecretID(root.SecretID)
	if err := c.System().GarbageCollect(); err != nil {
		t.Fatalf("management GC: %v", err)
	}
	if err := c.System().ReconcileSummaries(); err != nil {
		t.Fatalf("management reconcile: %v", err)
	}
}
