package allocrunner

import (
	"context"
	"time"

	"github.com/nomadish/nomadish/client/checks"
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// Services registers an allocation's services and runs their checks
// (client/services.Hook satisfies it). Sync and the readers must not block.
type Services interface {
	// Sync hands over the newest allocation, each running task's start
	// time, and whether the group's tasks all run.
	Sync(alloc *structs.Allocation, running map[string]time.Time, groupRunning bool)
	// Health is every check of the allocation for deployment health.
	Health() []checks.Health
	// Results is the latest result of each check, keyed by check ID.
	Results() map[string]*structs.CheckQueryResult
	// Stop ends the checks; deregister when the allocation is done (not
	// when the client only shuts down). It waits for the hook's goroutines.
	Stop(deregister bool)
}

// TaskControl is what the service hook may do with a task: exec a script
// check, restart it for a check (the task runner satisfies it).
type TaskControl interface {
	Exec(ctx context.Context, opts *base.ExecOptions) (*base.ExitResult, error)
	RestartForCheck(ctx context.Context, check string) error
}

// ServicesFactory builds the service hook of an allocation: task looks up
// its tasks (nil when unknown), onCheck is called after each check result.
// It returns nil when the allocation has no services.
type ServicesFactory func(alloc *structs.Allocation, task func(name string) TaskControl, onCheck func()) Services

// taskControl returns the named task's runner, or nil.
func (ar *AllocRunner) taskControl(name string) TaskControl {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	if tr, ok := ar.tasks[name]; ok {
		return tr
	}
	return nil
}

// syncServices tells the service hook what runs now (after a task state
// change or an allocation update).
func (ar *AllocRunner) syncServices() {
	if ar.svc == nil {
		return
	}
	states := ar.TaskStates()
	running := map[string]time.Time{}
	for name, s := range states {
		if s.State == structs.TaskStateRunning {
			running[name] = s.StartedAt
		}
	}
	hs, n := healthStates(ar.currentGroup(), states)
	group := len(hs) >= n && n > 0
	for _, s := range hs {
		if s.State != structs.TaskStateRunning {
			group = false
		}
	}
	ar.mu.Lock()
	alloc := ar.alloc
	ar.mu.Unlock()
	ar.svc.Sync(alloc, running, group)
}

// stopServices ends the service hook once every task is dead: the
// allocation's registrations are deleted unless the client is only
// shutting down (its tasks keep running).
func (ar *AllocRunner) stopServices() {
	if ar.svc == nil {
		return
	}
	ar.mu.Lock()
	detached := ar.detached
	ar.mu.Unlock()
	ar.svc.Stop(!detached)
}

// CheckResults returns the latest result of each of the allocation's
// checks, keyed by check ID (empty without services).
func (ar *AllocRunner) CheckResults() map[string]*structs.CheckQueryResult {
	if ar.svc == nil {
		return map[string]*structs.CheckQueryResult{}
	}
	return ar.svc.Results()
}

// checkHealth is the checks' part in deployment health (nil: no checks).
func (ar *AllocRunner) checkHealth() []checks.Health {
	if ar.svc == nil {
		return nil
	}
	return ar.svc.Health()
}
