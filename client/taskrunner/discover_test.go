package taskrunner_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// discoveringDriver is a FakeDriver that also implements
// base.TaskDiscoverer: it "finds" the task whose handle is in found (one
// an earlier client started), or answers err.
type discoveringDriver struct {
	*clienttest.FakeDriver
	found *base.TaskHandle
	err   error
	asked []string // alloc/task of each DiscoverTask call
}

func (d *discoveringDriver) DiscoverTask(cfg *base.TaskConfig) (*base.TaskHandle, error) {
	d.asked = append(d.asked, cfg.AllocID+"/"+cfg.Name)
	if d.err != nil {
		return nil, d.err
	}
	if d.found == nil {
		return nil, fmt.Errorf("none: %w", base.ErrTaskNotFound)
	}
	if err := d.RecoverTask(d.found); err != nil {
		return nil, err
	}
	return d.found, nil
}

var _ base.TaskDiscoverer = (*discoveringDriver)(nil)

// earlierTask starts the task in drv as a previous client would have, and
// returns its handle (which the runner under test never sees).
func earlierTask(t *testing.T, drv *clienttest.FakeDriver, alloc *structs.Allocation) *base.TaskHandle {
	t.Helper()
	task := alloc.Job.TaskGroups[0].Tasks[0]
	h, err := drv.StartTask(&base.TaskConfig{ID: alloc.ID + "/" + task.Name + "/old00001", Name: task.Name,
		AllocID: alloc.ID, Config: task.Config})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func starts(calls []string) int {
	return len(slices.DeleteFunc(calls, func(c string) bool { return !strings.HasPrefix(c, "start ") }))
}

// TestDiscoveredTaskIsAdoptedNotStarted: a runner with no handle (the
// client's state was lost) whose driver finds the task still running adopts
// it: no second start, state running, and a kill stops that very task.
func TestDiscoveredTaskIsAdoptedNotStarted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := clienttest.NewFakeDriver()
		task := &structs.Task{Name: "web", Driver: "mock", Config: map[string]any{}}
		alloc := testAlloc(structs.JobTypeService, task, nil)
		old := earlierTask(t, fake, alloc)
		drv := &discoveringDriver{FakeDriver: fake, found: old}
		db := openDB(t) // fresh: nothing about the task
		tr := newRunner(t, alloc, drv, db, t.TempDir())
		go tr.Run()
		synctest.Wait()

		if n := starts(fake.Calls()); n != 1 {
			t.Fatalf("task started %d times in all, want 1 (the earlier client's): %v", n, fake.Calls())
		}
		s := tr.State()
		if s.State != structs.TaskStateRunning {
			t.Fatalf("state = %s, want running", s.State)
		}
		if h := tr.Handle(); h == nil || h.Config.ID != old.Config.ID {
			t.Fatalf("handle = %+v, want the earlier task's", h)
		}
		if got := eventTypes(s); got != "Received,Started" {
			t.Fatalf("events = %s", got)
		}
		if drv.asked[0] != alloc.ID+"/web" {
			t.Fatalf("asked for %v", drv.asked)
		}
		tr.Kill()
		<-tr.WaitCh()
		if !slices.ContainsFunc(fake.Calls(), func(c string) bool { return strings.HasPrefix(c, "stop "+old.Config.ID) }) {
			t.Fatalf("kill did not stop the adopted task: %v", fake.Calls())
		}
		if len(fake.Running()) != 0 {
			t.Fatalf("still running: %v", fake.Running())
		}
	})
}

// TestKilledRunnerStopsDiscoveredTask: a runner killed before it runs (its
// allocation was stopped while the client had lost its state) still looks
// for the task, and stops the one it finds.
func TestKilledRunnerStopsDiscoveredTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := clienttest.NewFakeDriver()
		task := &structs.Task{Name: "web", Driver: "mock", Config: map[string]any{}}
		alloc := testAlloc(structs.JobTypeService, task, nil)
		old := earlierTask(t, fake, alloc)
		drv := &discoveringDriver{FakeDriver: fake, found: old}
		tr := newRunner(t, alloc, drv, nil, t.TempDir())
		tr.Kill()
		go tr.Run()
		<-tr.WaitCh()
		if n := starts(fake.Calls()); n != 1 {
			t.Fatalf("starts = %d: %v", n, fake.Calls())
		}
		if len(fake.Running()) != 0 {
			t.Fatalf("orphan still running: %v", fake.Running())
		}
		if s := tr.State(); s.State != structs.TaskStateDead || s.Failed {
			t.Fatalf("state = %s failed=%v", s.State, s.Failed)
		}
	})
}

// TestNothingDiscoveredStartsTask: not found, not supported, or a failing
// discovery all lead to one normal start.
func TestNothingDiscoveredStartsTask(t *testing.T) {
	for name, err := range map[string]error{
		"not found":     nil,
		"not supported": base.ErrNotSupported,
		"engine down":   errors.New("cannot connect to the engine"),
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fake := clienttest.NewFakeDriver()
				task := &structs.Task{Name: "web", Driver: "mock", Config: map[string]any{}}
				drv := &discoveringDriver{FakeDriver: fake, err: err}
				tr := newRunner(t, testAlloc(structs.JobTypeService, task, nil), drv, nil, t.TempDir())
				go tr.Run()
				synctest.Wait()
				if n := starts(fake.Calls()); n != 1 || len(drv.asked) != 1 {
					t.Fatalf("starts = %d, asked = %v", n, drv.asked)
				}
				tr.Kill()
				<-tr.WaitCh()
			})
		})
	}
}
