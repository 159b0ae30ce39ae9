package allocrunner_test

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/structs"
)

// An in-place update with more memory reaches the running task through the
// driver (the task runner's event goes back through the alloc runner, which
// must not hold its lock meanwhile), and the task keeps running.
func TestInPlaceUpdateResizesRunningTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		u := &updates{}
		alloc := newAlloc(structs.JobTypeService, &structs.Task{Name: "web", Driver: "mock"})
		alloc.AllocatedResources = structs.AllocatedFor(alloc.Job.TaskGroups[0])
		drv := clienttest.NewFakeDriver()
		ar := start(t, alloc, drv, u)
		defer func() { ar.Kill(); <-ar.WaitCh() }()
		synctest.Wait()
		up := alloc.Copy()
		up.AllocatedResources.Tasks["web"].Memory.MemoryMB = 96
		ar.Update(up)
		synctest.Wait()
		calls := strings.Join(drv.Calls(), "\n")
		if !strings.Contains(calls, "mem=96") || strings.Count(calls, "start ") != 1 {
			t.Fatalf("calls:\n%s", calls)
		}
		s := ar.Alloc().TaskStates["web"]
		if s.State != structs.TaskStateRunning || s.Events[len(s.Events)-1].Type != structs.TaskResourcesUpdated {
			t.Fatalf("task state %+v", s)
		}
	})
}
