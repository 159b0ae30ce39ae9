package agent

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// TestOfficialClientAllocControl drives alloc signal, restart, stats and
// stop of a real raw_exec task through github.com/hashicorp/nomad/api.
func TestOfficialClientAllocControl(t *testing.T) {
	_, c := devAgent(t)
	job := api.NewServiceJob("ctl", "ctl", "global", 50)
	job.Datacenters = []string{"dc1"}
	script := `trap 'echo got-usr1' USR1; echo started; while true; do sleep 0.1; done`
	task := api.NewTask("t", "raw_exec").SetConfig("command", "/bin/sh").SetConfig("args", []string{"-c", script})
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	alloc := runningAlloc(t, c, "ctl", "")

	if err := c.Allocations().Signal(alloc, nil, "t", "SIGUSR1"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the trap to log the signal", func() error {
		if out := readLog(c, alloc); !strings.Contains(out, "got-usr1") {
			return fmt.Errorf("stdout %q", out)
		}
		return nil
	})
	for _, tc := range []struct{ task, sig, want string }{
		{"nope", "SIGUSR1", "404"}, {"t", "SIGNOPE", "400"}, {"", "SIGUSR1", ""},
	} {
		err := c.Allocations().Signal(alloc, nil, tc.task, tc.sig)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("signal task %q %s: %v, want %q", tc.task, tc.sig, err, tc.want)
		}
	}

	waitFor(t, 10*time.Second, "memory stats", func() error {
		st, err := c.Allocations().Stats(alloc, nil)
		if err != nil {
			return err
		}
		tu := st.Tasks["t"]
		if tu == nil || tu.ResourceUsage.MemoryStats.RSS == 0 || st.ResourceUsage.MemoryStats.RSS == 0 || st.Timestamp == 0 {
			return fmt.Errorf("stats %+v", st)
		}
		return nil
	})

	if err := c.Allocations().Restart(alloc, "t", nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the task to run again", func() error {
		a, _, err := c.Allocations().Info(alloc.ID, nil)
		if err != nil {
			return err
		}
		ts := a.TaskStates["t"]
		if ts == nil || ts.State != "running" || ts.Restarts != 1 {
			return fmt.Errorf("task state %+v", ts)
		}
		for _, e := range ts.Events {
			if e.Type == "Restart Signaled" {
				return nil
			}
		}
		return fmt.Errorf("no Restart Signaled event")
	})
	if err := c.Allocations().RestartAllTasks(alloc, nil); err != nil {
		t.Fatal(err)
	}

	resp, err := c.Allocations().Stop(alloc, nil)
	if err != nil || resp.EvalID == "" || resp.LastIndex == 0 {
		t.Fatalf("stop: %+v %v", resp, err)
	}
	runningAlloc(t, c, "ctl", alloc.ID)
	if _, err := c.Allocations().Stop(&api.Allocation{ID: "00000000-0000-4000-8000-000000000000"}, nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("stop of an unknown alloc: %v", err)
	}
}

// runningAlloc waits for a running allocation of job other than not.
func runningAlloc(t *testing.T, c *api.Client, job, not string) *api.Allocation {
	t.Helper()
	var alloc *api.Allocation
	waitFor(t, 20*time.Second, "a running alloc of "+job, func() error {
		allocs, _, err := c.Jobs().Allocations(job, false, nil)
		if err != nil {
			return err
		}
		for _, a := range allocs {
			if a.ID != not && a.ClientStatus == "running" && a.DesiredStatus == "run" {
				alloc, _, err = c.Allocations().Info(a.ID, nil)
				return err
			}
		}
		return fmt.Errorf("allocs %v", allocs)
	})
	return alloc
}

// readLog returns the task's stdout so far ("" on error).
func readLog(c *api.Client, alloc *api.Allocation) string {
	frames, errs := c.AllocFS().Logs(alloc, false, "t", "stdout", "start", 0, nil, nil)
	if frames == nil {
		<-errs
		return ""
	}
	var out strings.Builder
	for f := range frames {
		out.Write(f.Data)
	}
	return out.String()
}
