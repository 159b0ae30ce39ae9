package allocrunner

import (
	"github.com/nomadish/nomadish/client/allocdir"
	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/structs"
)

// Alloc returns the allocation as the client sees it: the server's
// allocation with the client status and task states filled in. The caller
// owns the returned struct (its Job is shared and must not be modified).
func (ar *AllocRunner) Alloc() *structs.Allocation {
	ar.mu.Lock()
	a := *ar.alloc
	ar.mu.Unlock()
	a.TaskStates = ar.TaskStates()
	a.ClientStatus, a.ClientDescription = ClientStatus(a.TaskStates)
	return &a
}

// TaskStates returns a copy of every task's state.
func (ar *AllocRunner) TaskStates() map[string]*structs.TaskState {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	out := make(map[string]*structs.TaskState, len(ar.tasks)+len(ar.failedTasks))
	for name, tr := range ar.tasks {
		out[name] = tr.State()
	}
	for name, s := range ar.failedTasks {
		c := *s
		out[name] = &c
	}
	return out
}

// TaskState returns one task's state, or nil when the task is unknown.
func (ar *AllocRunner) TaskState(task string) *structs.TaskState {
	return ar.TaskStates()[task]
}

// AllocDir returns the allocation's directory layout.
func (ar *AllocRunner) AllocDir() *allocdir.AllocDir { return ar.dir }

// taskStateUpdated runs on a task runner's goroutine after its state
// changed: it advances the lifecycle (opens start gates; kills the
// siblings of a failed task, of a dead leader, or of main tasks all dead:
// lifecycle_hooks.go) and reports the allocation's new client state.
func (ar *AllocRunner) taskStateUpdated() {
	ar.advanceLifecycle()
	ar.syncServices() // services.go
	ar.notifyHealth()
	ar.sendUpdate()
}

func (ar *AllocRunner) sendUpdate() {
	ar.mu.Lock()
	detached := ar.detached
	ar.mu.Unlock()
	if ar.cfg.OnUpdate == nil || detached {
		return
	}
	a := ar.Alloc()
	deploymentID, health := ar.deploymentHealth()
	ar.cfg.OnUpdate(&structs.Allocation{
		ID: a.ID, NodeID: a.NodeID, ClientStatus: a.ClientStatus,
		ClientDescription: a.ClientDescription, TaskStates: a.TaskStates,
		DeploymentID: deploymentID, DeploymentStatus: health,
		NetworkStatus: ar.networkStatus(), // network_hook.go
	})
}

// isDetached reports whether Shutdown detached the runner.
func (ar *AllocRunner) isDetached() bool {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	return ar.detached
}

// Update takes a newer version of the allocation from the server; a
// desired status of stop or evict kills its tasks.
func (ar *AllocRunner) Update(alloc *structs.Allocation) {
	ar.mu.Lock()
	ar.alloc = alloc
	ar.mu.Unlock()
	if ar.cfg.State != nil {
		if err := ar.cfg.State.PutAlloc(alloc); err != nil {
			ar.logger.Error("persisting alloc", "error", err)
		}
	}
	if alloc.TerminalStatus() {
		ar.syncServices() // deregistered before the tasks are stopped
		ar.mu.Lock()
		started := ar.started
		ar.mu.Unlock()
		if !started {
			ar.Kill()
			return
		}
		ar.stopOnce.Do(func() { go ar.stop() }) // lifecycle_hooks.go
		return
	}
	ar.mu.Lock()
	runners := make([]*taskrunner.TaskRunner, 0, len(ar.tasks))
	for _, tr := range ar.tasks {
		runners = append(runners, tr)
	}
	ar.mu.Unlock()
	for _, tr := range runners {
		tr.Update(alloc) // an in-place update: new cpu/memory reach the running task
	}
	ar.syncServices() // services.go: canary tags dropped on promotion
	ar.startHealthWatch()
}

// Kill asks every task to stop, poststop tasks included, at once (no
// shutdown delay); it does not wait (see WaitCh). A desired stop goes
// through Update instead, which keeps the lifecycle order.
func (ar *AllocRunner) Kill() {
	ar.killOnce.Do(func() { close(ar.killCh) })
	ar.mu.Lock()
	defer ar.mu.Unlock()
	for _, tr := range ar.tasks {
		tr.Kill()
	}
}

// Shutdown detaches from the tasks without stopping them (the client is
// going away; a restarted client re-attaches) and waits for the task
// runners to return.
func (ar *AllocRunner) Shutdown() {
	ar.mu.Lock()
	ar.detached = true
	runners := make([]*taskrunner.TaskRunner, 0, len(ar.tasks))
	for _, tr := range ar.tasks {
		tr.Detach()
		runners = append(runners, tr)
	}
	ar.mu.Unlock()
	for _, tr := range runners {
		<-tr.WaitCh()
	}
}

// WaitCh is closed once Run has started and every task is dead (or the
// runner was shut down).
func (ar *AllocRunner) WaitCh() <-chan struct{} { return ar.waitCh }

// IsDead reports whether every task is dead.
func (ar *AllocRunner) IsDead() bool {
	select {
	case <-ar.waitCh:
		return true
	default:
		return false
	}
}

// Destroy kills the tasks, waits for them, then removes the alloc dir and
// the persisted state. Called when the server no longer has the allocation.
func (ar *AllocRunner) Destroy() error {
	ar.Kill()
	ar.Run() // no-op when running; makes WaitCh close for a never-run alloc
	<-ar.waitCh
	var errs structs.MultiError
	errs.Add(ar.dir.Destroy())
	if ar.cfg.State != nil {
		errs.Add(ar.cfg.State.DeleteAlloc(ar.alloc.ID))
	}
	return errs.ErrorOrNil()
}
