package taskrunner

import (
	"fmt"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// StartGate holds a task back until its lifecycle phase is due (the alloc
// runner's coordinator opens it): Ch is closed when the task may start;
// Reason is the "Waiting" event's message while it is not.
type StartGate struct {
	Ch     <-chan struct{}
	Reason string
}

// waitStartGate waits, on Run's goroutine, for the start gate before the
// task's first start; while it waits the task stays pending and its
// events say why. It reports false when the runner was killed (the task
// is then dead, never started) or detached.
func (tr *TaskRunner) waitStartGate() bool {
	g := tr.cfg.StartGate
	if g == nil || g.Ch == nil {
		return true
	}
	select {
	case <-g.Ch:
		return true
	default:
	}
	tr.emit(structs.NewTaskEvent(structs.TaskWaitingForLifecycle, tr.now()), g.Reason, nil)
	select {
	case <-g.Ch:
		if !tr.killed() { // a kill that opened the gate (prestart killed) wins
			return true
		}
		tr.markDead(false)
		return false
	case <-tr.killCh:
		tr.markDead(false)
		return false
	case <-tr.detachCh:
		return false
	}
}

// Event records an event on the task (the alloc runner's lifecycle
// events: "Sibling Task Failed", "Main Tasks Dead", "Leader Task Dead",
// "Waiting for shutdown delay") and reports the new state. Any goroutine.
func (tr *TaskRunner) Event(typ, msg string) {
	tr.emit(structs.NewTaskEvent(typ, tr.now()), msg, nil)
}

// Task returns the task the runner runs (owned by the job: read only).
func (tr *TaskRunner) Task() *structs.Task { return tr.cfg.Task }

// restartPolicy is the task's own restart policy (its restart block over
// the group's, merged by Canonicalize), else the group's.
func (tr *TaskRunner) restartPolicy(tg *structs.TaskGroup) *structs.RestartPolicy {
	if tr.cfg.Task.RestartPolicy != nil {
		return tr.cfg.Task.RestartPolicy
	}
	if tg != nil {
		return tg.RestartPolicy
	}
	return nil
}

// doneOnSuccess reports whether an exit 0 ends the task for good although
// the job type would restart it: a prestart or poststart task that is not
// a sidecar, and any poststop task (Task.RestartOnSuccess).
func (tr *TaskRunner) doneOnSuccess(jobType string, res *base.ExitResult) bool {
	return res != nil && res.Successful() && !tr.cfg.Task.RestartOnSuccess(jobType)
}

// waitShutdownDelay waits the task's shutdown_delay before its kill signal
// (Run's goroutine), with the event "Waiting for shutdown delay". It
// returns early when the task exits (ch, its wait channel, which may be
// nil; exited reports it) and reports false when the runner was detached
// meanwhile: the task is left running for the next client.
func (tr *TaskRunner) waitShutdownDelay(ch <-chan *base.ExitResult) (exited, ok bool) {
	d := tr.cfg.Task.ShutdownDelay
	if d <= 0 {
		return false, true
	}
	tr.emit(structs.NewTaskEvent(structs.TaskWaitingShuttingDownDelay, tr.now()),
		fmt.Sprintf("Waiting for shutdown_delay of %v before killing the task.", d), nil)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return false, true
	case <-ch:
		return true, true
	case <-tr.detachCh:
		return false, false
	}
}
