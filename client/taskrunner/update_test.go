package taskrunner_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/structs"
)

// resized returns a copy of alloc whose task asks mem MB.
func resized(alloc *structs.Allocation, mem int64) *structs.Allocation {
	a := alloc.Copy()
	a.AllocatedResources.Tasks["t"].Memory.MemoryMB = mem
	return a
}

func lastEvent(s *structs.TaskState) *structs.TaskEvent { return s.Events[len(s.Events)-1] }

// An in-place update with new memory reaches the running task through the
// driver's UpdateTask, without a restart, and an event records it; an update
// without a change of resources does nothing.
func TestUpdateResourcesOfRunningTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		drv := clienttest.NewFakeDriver()
		task := &structs.Task{Name: "t", Driver: "mock", Config: map[string]any{}}
		alloc := testAlloc(structs.JobTypeService, task, nil)
		tr := newRunner(t, alloc, drv, nil, t.TempDir())
		go tr.Run()
		synctest.Wait()
		tr.Update(alloc.Copy()) // same resources
		tr.Update(resized(alloc, 96))
		synctest.Wait()
		calls := strings.Join(drv.Calls(), "\n")
		if strings.Count(calls, "update ") != 1 || !strings.Contains(calls, "cpu=100 mem=96 max=0") || strings.Count(calls, "start ") != 1 {
			t.Fatalf("calls:\n%s", calls)
		}
		s := tr.State()
		if got, want := eventTypes(s), "Received,Task Setup,Started,Resources Updated"; got != want {
			t.Fatalf("events = %s, want %s", got, want)
		}
		if ev := lastEvent(s); ev.DisplayMessage != "Task resources updated" || ev.Details["memory_mb"] != "96" {
			t.Fatalf("event %+v", ev)
		}
		if h := tr.Handle(); h.Config.Resources.MemoryMB != 96 {
			t.Fatalf("handle resources %+v", h.Config.Resources)
		}
		tr.Kill()
		<-tr.WaitCh()
	})
}

// plainDriver hides the fake's optional methods: a driver that cannot
// update a running task.
type plainDriver struct{ taskrunner.Driver }

// Without the capability the task keeps its limits until it restarts; the
// event says so, and the restart gets the new ones.
func TestUpdateResourcesWithoutCapability(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := clienttest.NewFakeDriver()
		task := &structs.Task{Name: "t", Driver: "mock", Config: map[string]any{}}
		alloc := testAlloc(structs.JobTypeService, task, nil)
		tr := newRunner(t, alloc, plainDriver{fake}, nil, t.TempDir())
		go tr.Run()
		synctest.Wait()
		tr.Update(resized(alloc, 96))
		s := tr.State()
		ev := lastEvent(s)
		if ev.Type != structs.TaskResourcesUpdated || !strings.Contains(ev.DisplayMessage, "next restart") {
			t.Fatalf("event %+v", ev)
		}
		if strings.Contains(strings.Join(fake.Calls(), "\n"), "update ") {
			t.Fatal("UpdateTask called without the capability")
		}
		fake.Exit(fake.Running()[0], 1) // the restart (after its delay) takes the new limits
		time.Sleep(time.Minute)         // synctest's clock
		synctest.Wait()
		started := fake.Started()
		if len(started) != 2 || started[1].Resources.MemoryMB != 96 || started[0].Resources.MemoryMB != 300 {
			t.Fatalf("started %d times: %+v", len(started), started)
		}
		tr.Kill()
		<-tr.WaitCh()
	})
}
