package agent

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

func versionsTestJob(sleep string) *api.Job {
	job := api.NewServiceJob("versioned", "versioned", "global", 50)
	job.Datacenters = []string{"dc1"}
	task := api.NewTask("sleep", "raw_exec").
		SetConfig("command", "/bin/sleep").SetConfig("args", []string{sleep})
	task.Resources = &api.Resources{CPU: new(50), MemoryMB: new(32)}
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	return job
}

// TestOfficialClientVersionsRevertScale drives job versions, revert, scale,
// scale status, stability and check-index with github.com/hashicorp/nomad/api.
func TestOfficialClientVersionsRevertScale(t *testing.T) {
	_, c := devAgent(t)
	jobs := c.Jobs()
	if _, _, err := jobs.Register(versionsTestJob("300"), nil); err != nil {
		t.Fatal(err)
	}
	plan, _, err := jobs.Plan(versionsTestJob("301"), true, nil)
	if err != nil || plan.Diff == nil || plan.Diff.Type != "Edited" || len(plan.Diff.TaskGroups[0].Tasks) != 1 {
		t.Fatalf("plan diff %+v: %v", plan.Diff, err)
	}
	if task := plan.Diff.TaskGroups[0].Tasks[0]; len(task.Annotations) != 1 || task.Annotations[0] != "forces create/destroy update" {
		t.Fatalf("plan task diff %+v", task)
	}
	// check-index: the plan's index works once; a stale one is refused.
	if _, _, err := jobs.EnforceRegister(versionsTestJob("301"), plan.JobModifyIndex, nil); err != nil {
		t.Fatalf("enforce register with the plan's index: %v", err)
	}
	_, _, err = jobs.EnforceRegister(versionsTestJob("302"), plan.JobModifyIndex, nil)
	if err == nil || !strings.Contains(err.Error(), "409") || !strings.Contains(err.Error(), "Enforcing job modify index") {
		t.Fatalf("stale enforce register: %v", err)
	}

	versions, diffs, qm, err := jobs.Versions("versioned", true, nil)
	if err != nil || len(versions) != 2 || *versions[0].Version != 1 || len(diffs) != 1 || qm.LastIndex == 0 {
		t.Fatalf("versions %d, diffs %d: %v", len(versions), len(diffs), err)
	}
	if d := diffs[0].TaskGroups[0].Tasks[0].Objects; len(d) != 1 || d[0].Name != "Config" {
		t.Fatalf("version diff objects %+v", d)
	}
	if _, _, _, err := jobs.Versions("nope", false, nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("versions of an unknown job: %v", err)
	}

	prior := uint64(1)
	rev, _, err := jobs.Revert("versioned", 0, &prior, nil, "", "")
	if err != nil || rev.EvalID == "" {
		t.Fatalf("revert: %+v %v", rev, err)
	}
	got, _, err := jobs.Info("versioned", nil)
	if err != nil || *got.Version != 2 || got.TaskGroups[0].Tasks[0].Config["args"].([]any)[0] != "300" {
		t.Fatalf("after revert: %+v %v", got, err)
	}
	if _, _, err := jobs.Revert("versioned", 2, nil, nil, "", ""); err == nil {
		t.Fatal("revert to the current version accepted")
	}

	two := 2
	sc, _, err := jobs.Scale("versioned", "g", &two, "more", false, nil, nil)
	if err != nil || sc.EvalID == "" {
		t.Fatalf("scale: %+v %v", sc, err)
	}
	if _, _, err := jobs.Scale("versioned", "nope", &two, "", false, nil, nil); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("scale of an unknown group: %v", err)
	}
	waitFor(t, 20*time.Second, "two running allocs in the scale status", func() error {
		st, _, err := jobs.ScaleStatus("versioned", nil)
		if err != nil {
			return err
		}
		g := st.TaskGroups["g"]
		if st.JobID != "versioned" || g.Desired != 2 || g.Running != 2 || g.Placed != 2 {
			return fmt.Errorf("scale status %+v", st)
		}
		return nil
	})
	if _, _, err := jobs.Stable("versioned", 3, true, nil); err != nil {
		t.Fatalf("stable: %v", err)
	}
	if got, _, _ := jobs.Info("versioned", nil); !*got.Stable || *got.Version != 3 {
		t.Fatalf("stable flag not set on the current version: %v %v", *got.Stable, *got.Version)
	}
	if _, _, err := jobs.Deregister("versioned", true, nil); err != nil {
		t.Fatal(err)
	}
}
