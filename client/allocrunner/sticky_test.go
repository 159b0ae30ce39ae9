package allocrunner_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"

	"github.com/nomadish/nomadish/client/allocrunner"
	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/structs"
)

// stickyPair runs a previous allocation (its task runs until stopped, and
// has written alloc/data/keep and web/local/state) and then its replacement
// on the same node, with the group's ephemeral_disk sticky as given.
func stickyPair(t *testing.T, sticky bool) (prev, next *allocrunner.AllocRunner) {
	t.Helper()
	root := t.TempDir()
	drv := clienttest.NewFakeDriver()
	mk := func(id string, previous *allocrunner.AllocRunner) *allocrunner.AllocRunner {
		alloc := newAlloc(structs.JobTypeService, &structs.Task{Name: "web", Driver: "mock"})
		alloc.ID = id
		alloc.Job.TaskGroups[0].EphemeralDisk.Sticky = sticky
		if previous != nil {
			alloc.PreviousAllocation = previous.Alloc().ID
		}
		ar, err := allocrunner.New(allocrunner.Config{Alloc: alloc, AllocRoot: root, OnUpdate: (&updates{}).add, Previous: previous,
			Drivers: func(string) (taskrunner.Driver, error) { return drv, nil }})
		if err != nil {
			t.Fatal(err)
		}
		ar.Run()
		return ar
	}
	prev = mk("a1", nil)
	synctest.Wait()
	write(t, filepath.Join(prev.AllocDir().SharedDir, "data", "keep"), "kept")
	write(t, filepath.Join(prev.AllocDir().TaskDir("web").LocalDir, "state"), "local")
	next = mk("a2", prev)
	return prev, next
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func stop(ar *allocrunner.AllocRunner) {
	a := *ar.Alloc()
	a.DesiredStatus = structs.AllocDesiredStatusStop
	ar.Update(&a)
}

// With a sticky disk the replacement waits for the previous allocation to
// stop (its task does not start before), then has its data and local dir.
func TestStickyDiskMovesData(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		prev, next := stickyPair(t, true)
		synctest.Wait()
		if s := next.TaskState("web"); s != nil && s.State == structs.TaskStateRunning {
			t.Fatal("the replacement started before the previous allocation stopped")
		}
		stop(prev)
		<-prev.WaitCh()
		synctest.Wait()
		if s := next.TaskState("web"); s == nil || s.State != structs.TaskStateRunning {
			t.Fatalf("replacement task state %+v", s)
		}
		for p, want := range map[string]string{
			filepath.Join(next.AllocDir().SharedDir, "data", "keep"):        "kept",
			filepath.Join(next.AllocDir().TaskDir("web").LocalDir, "state"): "local",
		} {
			if b, err := os.ReadFile(p); err != nil || string(b) != want {
				t.Errorf("%s = %q, %v; want %q", p, b, err, want)
			}
		}
		if _, err := os.Stat(filepath.Join(prev.AllocDir().SharedDir, "data", "keep")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("data still in the previous alloc: %v", err)
		}
		stop(next)
		<-next.WaitCh()
	})
}

// Without sticky the replacement starts at once with an empty data dir.
func TestNotStickyStartsEmpty(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		prev, next := stickyPair(t, false)
		synctest.Wait()
		if s := next.TaskState("web"); s == nil || s.State != structs.TaskStateRunning {
			t.Fatalf("replacement task state %+v", s)
		}
		if _, err := os.Stat(filepath.Join(next.AllocDir().SharedDir, "data", "keep")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("data moved without sticky: %v", err)
		}
		stop(prev)
		stop(next)
		<-prev.WaitCh()
		<-next.WaitCh()
	})
}
