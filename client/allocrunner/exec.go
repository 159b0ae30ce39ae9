package allocrunner

import (
	"context"

	"github.com/nomadish/nomadish/drivers/base"
)

// CheckExec reports whether Exec can run a command in task now: errors
// wrap ErrUnknownTask, taskrunner.ErrTaskNotRunning or
// taskrunner.ErrExecUnsupported.
func (ar *AllocRunner) CheckExec(task string) error {
	tr, err := ar.taskRunner(task)
	if err != nil {
		return err
	}
	return tr.CheckExec()
}

// Exec runs opts.Command in the running task (alloc exec; see
// taskrunner.Exec) until it exits or ctx ends. Errors as CheckExec's, or
// the driver's.
func (ar *AllocRunner) Exec(ctx context.Context, task string, opts *base.ExecOptions) (*base.ExitResult, error) {
	tr, err := ar.taskRunner(task)
	if err != nil {
		return nil, err
	}
	return tr.Exec(ctx, opts)
}
