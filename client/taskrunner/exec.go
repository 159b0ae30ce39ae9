package taskrunner

import (
	"context"
	"errors"
	"fmt"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// ErrExecUnsupported: the task's driver cannot run commands in its tasks
// (no base.ExecStreamer, or Capabilities().Exec is false).
var ErrExecUnsupported = errors.New("taskrunner: driver cannot exec into tasks")

// CheckExec reports whether Exec can run a command in the task now.
// Errors: ErrTaskNotRunning (pending, dead or between restarts),
// ErrExecUnsupported, or the driver's error reading its capabilities.
// Safe from any goroutine.
func (tr *TaskRunner) CheckExec() error {
	_, _, err := tr.execTarget()
	return err
}

// Exec runs opts.Command in the running task through its driver (see
// base.ExecStreamer) and returns its exit result. It does not change the
// task's state or events. Errors as CheckExec's, or the driver's (an
// unknown driver task, which means the task just exited, wraps
// ErrTaskNotRunning). Safe from any goroutine; runs until the command exits
// or ctx ends.
func (tr *TaskRunner) Exec(ctx context.Context, opts *base.ExecOptions) (*base.ExitResult, error) {
	ex, id, err := tr.execTarget()
	if err != nil {
		return nil, err
	}
	res, err := ex.ExecTaskStreaming(ctx, id, opts)
	switch {
	case errors.Is(err, base.ErrNotSupported):
		return nil, fmt.Errorf("%w (driver %q): %v", ErrExecUnsupported, tr.cfg.Task.Driver, err)
	case errors.Is(err, base.ErrTaskNotFound):
		return nil, fmt.Errorf("%w: %v", ErrTaskNotRunning, err)
	}
	return res, err
}

// execTarget returns the driver and the driver's task ID of the running
// task.
func (tr *TaskRunner) execTarget() (base.ExecStreamer, string, error) {
	ex, ok := tr.cfg.Driver.(base.ExecStreamer)
	if !ok {
		return nil, "", fmt.Errorf("%w (driver %q)", ErrExecUnsupported, tr.cfg.Task.Driver)
	}
	if c, ok := tr.cfg.Driver.(capabler); ok {
		caps, err := c.Capabilities()
		if err != nil {
			return nil, "", fmt.Errorf("reading the capabilities of driver %q: %w", tr.cfg.Task.Driver, err)
		}
		if !caps.Exec {
			return nil, "", fmt.Errorf("%w (driver %q)", ErrExecUnsupported, tr.cfg.Task.Driver)
		}
	}
	h := tr.Handle()
	if h == nil || h.Config == nil || tr.State().State != structs.TaskStateRunning {
		return nil, "", fmt.Errorf("task %q: %w", tr.cfg.Task.Name, ErrTaskNotRunning)
	}
	return ex, h.Config.ID, nil
}
