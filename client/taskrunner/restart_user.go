package taskrunner

import (
	"context"
	"fmt"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// restartReq is one Restart call handed to Run's goroutine: the task
// instance it targets and where to answer once that instance is stopped.
type restartReq struct {
	taskID string
	reply  chan error // cap 1
	// check names the check of a check_restart (check_restart.go); ""
	// for a user restart.
	check string
}

// userRestart is the state of user-requested restarts. ch is made by New;
// pending is owned by Run's goroutine.
type userRestart struct {
	ch chan restartReq
	// pending is set when the exit Run handles was a user restart: the
	// task starts again at once, outside the restart policy.
	pending bool
}

// Restart stops the running task and starts it again in place (alloc
// restart), without counting against the group's restart policy: events
// "Restart Signaled" ("User requested running tasks to restart"), then
// "Terminated", "Restarting" (delay 0) and "Started" as the new instance
// runs. It returns once the old instance has exited (the new one starts
// right after), or with ctx's error. Safe from any goroutine. Errors:
// ErrTaskNotRunning when the task is not running (dead, pending, between
// restarts, or it exited before the request reached the runner).
func (tr *TaskRunner) Restart(ctx context.Context) error {
	return tr.requestRestart(ctx, "")
}

// requestRestart hands a restart request for the running instance to Run's
// goroutine (check: the check of a check_restart, "" : a user restart)
// and waits for the instance to exit.
func (tr *TaskRunner) requestRestart(ctx context.Context, check string) error {
	h := tr.Handle()
	if h == nil || h.Config == nil || tr.State().State != structs.TaskStateRunning {
		return ErrTaskNotRunning
	}
	req := restartReq{taskID: h.Config.ID, reply: make(chan error, 1), check: check}
	select {
	case tr.userRestart.ch <- req:
	case <-tr.waitCh:
		return ErrTaskNotRunning
	case <-tr.killCh:
		return ErrTaskNotRunning
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-req.reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// restartKill serves a restart request from waitOrKill (Run's goroutine)
// while task h runs with wait channel ch: it records "Restart Signaled",
// stops the task with its kill signal and timeout, and returns its exit.
// A request for another (older) instance is refused with ErrTaskNotRunning
// and res is nil: keep waiting.
func (tr *TaskRunner) restartKill(h *base.TaskHandle, ch <-chan *base.ExitResult, req restartReq) *base.ExitResult {
	if req.taskID != h.Config.ID {
		req.reply <- ErrTaskNotRunning
		return nil
	}
	reason := structs.TaskRestartRunningReason
	if req.check != "" {
		reason = checkRestartReason(req.check)
	}
	ev := structs.NewTaskEvent(structs.TaskRestartSignal, tr.now())
	ev.RestartReason = reason
	tr.emit(ev, reason, nil)
	timeout := tr.cfg.Task.KillTimeout
	if timeout <= 0 {
		timeout = structs.DefaultKillTimeout
	}
	// A user restart starts again outside the restart policy; a
	// check_restart's exit goes through it (afterExit).
	tr.userRestart.pending = req.check == ""
	if err := tr.cfg.Driver.StopTask(h.Config.ID, timeout, tr.cfg.Task.KillSignal); err != nil {
		tr.logger.Warn("stopping task for restart", "error", err)
	}
	res := &base.ExitResult{ExitCode: -1, Err: errWaitClosed}
	t := time.NewTimer(timeout + killGrace)
	defer t.Stop()
	select {
	case r, ok := <-ch:
		if ok && r != nil {
			res = r
		}
	case <-t.C:
		tr.logger.Warn("task did not exit after kill timeout; restarting anyway")
	}
	req.reply <- nil
	return res
}

// afterUserRestart replaces afterExit after a user restart (Run's
// goroutine): event "Restarting" with no delay, state pending, Restarts
// counted in the task state but not in the restart policy's tracker. It
// reports whether to start the task again (false once Kill was called).
func (tr *TaskRunner) afterUserRestart() bool {
	tr.userRestart.pending = false
	if tr.killed() {
		tr.markDead(false)
		return false
	}
	now := tr.now()
	ev := structs.NewTaskEvent(structs.TaskRestarting, now)
	ev.RestartReason = structs.TaskRestartUserReason
	tr.emit(ev, fmt.Sprintf("Task restarting in %v", time.Duration(0)), func(s *structs.TaskState) {
		s.State = structs.TaskStatePending
		s.Restarts++
		s.LastRestart = now
	})
	tr.persist()
	return !tr.detached()
}
