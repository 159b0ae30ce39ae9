package allocrunner_test

import (
	"errors"
	"os"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/client/allocrunner"
	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/structs"
)

type updates struct {
	mu  sync.Mutex
	all []*structs.Allocation
}

func (u *updates) add(a *structs.Allocation) { u.mu.Lock(); u.all = append(u.all, a); u.mu.Unlock() }
func (u *updates) last() *structs.Allocation {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.all[len(u.all)-1]
}

func newAlloc(jobType string, tasks ...*structs.Task) *structs.Allocation {
	job := &structs.Job{ID: "j", Name: "j", Type: jobType, TaskGroups: []*structs.TaskGroup{{Name: "g", Tasks: tasks,
		RestartPolicy: &structs.RestartPolicy{Mode: structs.RestartPolicyModeFail, Interval: time.Hour}}}}
	job.Canonicalize()
	return &structs.Allocation{ID: "a1", NodeID: "n1", JobID: "j", Job: job, TaskGroup: "g", Name: "j.g[0]",
		DesiredStatus: structs.AllocDesiredStatusRun}
}

func start(t *testing.T, alloc *structs.Allocation, drv taskrunner.Driver, u *updates) *allocrunner.AllocRunner {
	t.Helper()
	ar, err := allocrunner.New(allocrunner.Config{Alloc: alloc, AllocRoot: t.TempDir(), OnUpdate: u.add,
		Drivers: func(name string) (taskrunner.Driver, error) {
			if name != "mock" {
				return nil, errors.New("driver not found")
			}
			return drv, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	ar.Run()
	return ar
}

func TestFailedTaskKillsSiblings(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		u := &updates{}
		alloc := newAlloc(structs.JobTypeBatch,
			&structs.Task{Name: "bad", Driver: "mock", Config: map[string]any{"run_for": "1s", "exit_code": 2}},
			&structs.Task{Name: "long", Driver: "mock"})
		ar := start(t, alloc, clienttest.NewFakeDriver(), u)
		synctest.Wait()
		if got := ar.Alloc().ClientStatus; got != structs.AllocClientStatusRunning {
			t.Fatalf("status %s", got)
		}
		<-ar.WaitCh()
		last := u.last()
		if last.ClientStatus != structs.AllocClientStatusFailed || last.NodeID != "n1" || last.ID != "a1" {
			t.Fatalf("last update %+v", last)
		}
		if s := last.TaskStates["long"]; s.State != structs.TaskStateDead || s.Failed {
			t.Fatalf("sibling %+v", s)
		}
		if _, err := os.Stat(ar.AllocDir().LogDir); err != nil {
			t.Fatal(err)
		}
		if err := ar.Destroy(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(ar.AllocDir().Dir); !os.IsNotExist(err) {
			t.Fatalf("alloc dir not removed: %v", err)
		}
	})
}

func TestDesiredStopCompletes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		u := &updates{}
		alloc := newAlloc(structs.JobTypeService, &structs.Task{Name: "web", Driver: "mock"})
		ar := start(t, alloc, clienttest.NewFakeDriver(), u)
		synctest.Wait()
		stop := *alloc
		stop.DesiredStatus = structs.AllocDesiredStatusStop
		ar.Update(&stop)
		<-ar.WaitCh()
		if got := u.last().ClientStatus; got != structs.AllocClientStatusComplete {
			t.Fatalf("status %s", got)
		}
	})
}

func TestUnknownDriverFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		u := &updates{}
		alloc := newAlloc(structs.JobTypeService, &structs.Task{Name: "web", Driver: "nope"}, &structs.Task{Name: "ok", Driver: "mock"})
		ar := start(t, alloc, clienttest.NewFakeDriver(), u)
		<-ar.WaitCh()
		last := u.last()
		if last.ClientStatus != structs.AllocClientStatusFailed || last.TaskStates["web"].Events[0].Type != structs.TaskDriverFailure {
			t.Fatalf("last %+v", last)
		}
	})
}
