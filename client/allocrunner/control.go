package allocrunner

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// ErrUnknownTask: the allocation has no task of that name.
var ErrUnknownTask = errors.New("allocrunner: unknown task")

// taskRunner returns the runner of task, or an error wrapping
// ErrUnknownTask (a task whose driver is missing has no runner: it never
// ran, so it is not running either).
func (ar *AllocRunner) taskRunner(task string) (*taskrunner.TaskRunner, error) {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	if tr := ar.tasks[task]; tr != nil {
		return tr, nil
	}
	if _, ok := ar.failedTasks[task]; ok {
		return nil, fmt.Errorf("task %q: %w", task, taskrunner.ErrTaskNotRunning)
	}
	return nil, fmt.Errorf("%w %q in allocation %s", ErrUnknownTask, task, ar.alloc.ID)
}

// runningTasks returns the runners of the running tasks, by name.
func (ar *AllocRunner) runningTasks() map[string]*taskrunner.TaskRunner {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	out := map[string]*taskrunner.TaskRunner{}
	for name, tr := range ar.tasks {
		if tr.State().State == structs.TaskStateRunning {
			out[name] = tr
		}
	}
	return out
}

// Signal sends sig to task, or to every running task when task is empty.
// Errors: ErrUnknownTask; taskrunner.ErrBadSignal; ErrTaskNotRunning for
// a task that is not running, or when no task runs; the task runner's
// other errors (joined, one per task, for all tasks).
func (ar *AllocRunner) Signal(task, sig string) error {
	if _, err := taskrunner.CanonicalSignal(sig); err != nil {
		return err
	}
	if task != "" {
		tr, err := ar.taskRunner(task)
		if err != nil {
			return err
		}
		return tr.Signal(sig)
	}
	return ar.eachRunning(func(name string, tr *taskrunner.TaskRunner) error { return tr.Signal(sig) })
}

// Restart restarts task in place, or every running task when task is
// empty (alloc restart; see taskrunner.Restart). It returns once the old
// instances have stopped. Errors as Signal's, or ctx's.
func (ar *AllocRunner) Restart(ctx context.Context, task string) error {
	if task != "" {
		tr, err := ar.taskRunner(task)
		if err != nil {
			return err
		}
		return tr.Restart(ctx)
	}
	return ar.eachRunning(func(name string, tr *taskrunner.TaskRunner) error { return tr.Restart(ctx) })
}

// eachRunning calls f for every running task concurrently and joins the
// errors (each naming its task); with no running task it is
// ErrTaskNotRunning.
func (ar *AllocRunner) eachRunning(f func(name string, tr *taskrunner.TaskRunner) error) error {
	running := ar.runningTasks()
	if len(running) == 0 {
		return fmt.Errorf("allocation %s has no running task: %w", ar.Alloc().ID, taskrunner.ErrTaskNotRunning)
	}
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for name, tr := range running {
		wg.Go(func() {
			if err := f(name, tr); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("task %q: %w", name, err))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errors.Join(errs...)
}

// Stats returns the latest usage sample of each running task that has one,
// by task name. The caller owns the map and the samples.
func (ar *AllocRunner) Stats() map[string]*base.TaskResourceUsage {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	out := map[string]*base.TaskResourceUsage{}
	for name, tr := range ar.tasks {
		if u := tr.Stats(); u != nil {
			out[name] = u
		}
	}
	return out
}
