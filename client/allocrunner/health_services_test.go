package allocrunner_test

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nomadish/nomadish/client/allocrunner"
	"github.com/nomadish/nomadish/client/checks"
	"github.com/nomadish/nomadish/client/clienttest"
	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/structs"
)

// fakeServices is a service hook whose one check's status the test sets.
type fakeServices struct {
	mu      sync.Mutex
	status  string
	since   time.Time
	synced  int
	stopped []bool
	onCheck func()
}

var _ allocrunner.Services = (*fakeServices)(nil)

func (f *fakeServices) Sync(*structs.Allocation, map[string]time.Time, bool) {
	f.mu.Lock()
	f.synced++
	f.mu.Unlock()
}

func (f *fakeServices) Health() []checks.Health {
	f.mu.Lock()
	defer f.mu.Unlock()
	return []checks.Health{{ID: "c", OnUpdate: structs.OnUpdateRequireHealthy, Status: f.status, Since: f.since}}
}

func (f *fakeServices) Results() map[string]*structs.CheckQueryResult {
	return map[string]*structs.CheckQueryResult{"c": {ID: "c", Status: f.status}}
}

func (f *fakeServices) Stop(deregister bool) {
	f.mu.Lock()
	f.stopped = append(f.stopped, deregister)
	f.mu.Unlock()
}

func (f *fakeServices) set(status string) {
	f.mu.Lock()
	f.status, f.since = status, time.Now()
	f.mu.Unlock()
	f.onCheck()
}

// The allocation is healthy only once its check passes, min_healthy_time
// after it turned passing; the hook is synced and stopped (deregistering)
// with the allocation.
func TestHealthWaitsForChecks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		u := &updates{}
		a := deployedAlloc(5*time.Second, time.Minute, &structs.Task{Name: "web", Driver: "mock"})
		a.Job.TaskGroups[0].Update.HealthCheck = structs.UpdateHealthCheckChecks
		svc := &fakeServices{status: structs.CheckPending}
		ar, err := allocrunner.New(allocrunner.Config{Alloc: a, AllocRoot: t.TempDir(), OnUpdate: u.add,
			Drivers: func(string) (taskrunner.Driver, error) { return clienttest.NewFakeDriver(), nil },
			Services: func(_ *structs.Allocation, task func(string) allocrunner.TaskControl, onCheck func()) allocrunner.Services {
				if task("web") == nil || task("nope") != nil {
					t.Error("task lookup")
				}
				svc.onCheck = onCheck
				return svc
			}})
		if err != nil {
			t.Fatal(err)
		}
		ar.Run()
		time.Sleep(20 * time.Second)
		synctest.Wait()
		if h := lastHealth(u); h != nil {
			t.Fatalf("healthy with a pending check: %+v", h.DeploymentStatus)
		}
		svc.set(structs.CheckPassing)
		time.Sleep(4 * time.Second)
		synctest.Wait()
		if h := lastHealth(u); h != nil {
			t.Fatalf("healthy before min_healthy_time since the check passed: %+v", h.DeploymentStatus)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if h := lastHealth(u); h == nil || !h.DeploymentStatus.IsHealthy() {
			t.Fatalf("want healthy, got %+v", h)
		}
		if ar.CheckResults()["c"].Status != structs.CheckPassing {
			t.Fatalf("results %+v", ar.CheckResults())
		}
		ar.Kill()
		<-ar.WaitCh()
		svc.mu.Lock()
		defer svc.mu.Unlock()
		if svc.synced == 0 || len(svc.stopped) != 1 || !svc.stopped[0] {
			t.Fatalf("synced %d, stopped %v", svc.synced, svc.stopped)
		}
	})
}
