package agent

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// TestOfficialClientGC drives alloc gc and node gc through
// github.com/hashicorp/nomad/api: a running allocation is refused (400)
// and kept, a terminal one's dir is removed, node gc removes every
// terminal one and keeps the running one.
func TestOfficialClientGC(t *testing.T) {
	a, c := devAgent(t)
	svc := api.NewServiceJob("gc-svc", "gc-svc", "global", 50)
	svc.Datacenters = []string{"dc1"}
	loop := api.NewTask("t", "raw_exec").SetConfig("command", "/bin/sh").SetConfig("args", []string{"-c", "while true; do sleep 0.1; done"})
	svc.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(loop))
	if _, _, err := c.Jobs().Register(svc, nil); err != nil {
		t.Fatal(err)
	}
	live := runningAlloc(t, c, "gc-svc", "")
	done1 := completeBatch(t, c, "gc-b1")
	done2 := completeBatch(t, c, "gc-b2")
	dirOf := func(id string) string {
		t.Helper()
		d, err := a.Client().AllocDir(id)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	liveDir, dir1, dir2 := dirOf(live.ID), dirOf(done1.ID), dirOf(done2.ID)

	if err := c.Allocations().GC(live, nil); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("alloc gc of a running alloc: %v, want a 400", err)
	}
	if err := c.Allocations().GC(done1, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir1); !os.IsNotExist(err) {
		t.Fatalf("alloc dir after alloc gc: %v", err)
	}
	if err := c.Allocations().GC(done1, nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("alloc gc of a collected alloc: %v, want a 404", err)
	}

	if err := c.Nodes().GC(live.NodeID, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir2); !os.IsNotExist(err) {
		t.Fatalf("alloc dir after node gc: %v", err)
	}
	if _, err := os.Stat(liveDir); err != nil {
		t.Fatalf("node gc touched the running alloc: %v", err)
	}
	if err := c.Nodes().GC("", nil); err != nil {
		t.Fatalf("node gc of the agent's own client: %v", err)
	}
	if a, _, err := c.Allocations().Info(live.ID, nil); err != nil || a.ClientStatus != "running" {
		t.Fatalf("running alloc after node gc: %v %v", a, err)
	}
}

// completeBatch registers a one-task raw_exec batch job and waits for its
// allocation to complete.
func completeBatch(t *testing.T, c *api.Client, id string) *api.Allocation {
	t.Helper()
	job := api.NewBatchJob(id, id, "global", 50)
	job.Datacenters = []string{"dc1"}
	task := api.NewTask("t", "raw_exec").SetConfig("command", "/bin/sh").SetConfig("args", []string{"-c", "echo done"})
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	var alloc *api.Allocation
	waitFor(t, 20*time.Second, "a complete alloc of "+id, func() error {
		allocs, _, err := c.Jobs().Allocations(id, false, nil)
		if err != nil {
			return err
		}
		for _, a := range allocs {
			if a.ClientStatus == "complete" {
				alloc, _, err = c.Allocations().Info(a.ID, nil)
				return err
			}
		}
		return fmt.Errorf("allocs %v", allocs)
	})
	return alloc
}
