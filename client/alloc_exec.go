package client

import (
	"context"
	"errors"

	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// CheckAllocExec reports whether AllocExec can run a command in task of
// the local allocation allocID now, so the agent can refuse before it
// upgrades the connection. Errors are *structs.CodedError: unknown
// allocation or task 404; task not running or a driver that cannot exec
// 400.
func (c *Client) CheckAllocExec(allocID, task string) error {
	ar := c.runner(allocID)
	if ar == nil {
		return unknownAlloc(allocID)
	}
	return execError(ar.CheckExec(task))
}

// AllocExec runs opts.Command in task of allocation allocID (alloc exec)
// and returns its exit result once it exited and its output is written to
// opts.Stdout/Stderr. Cancelling ctx kills the command. Errors as
// CheckAllocExec's; a command that cannot be started is the driver's
// error.
func (c *Client) AllocExec(ctx context.Context, allocID, task string, opts *base.ExecOptions) (*base.ExitResult, error) {
	ar := c.runner(allocID)
	if ar == nil {
		return nil, unknownAlloc(allocID)
	}
	res, err := ar.Exec(ctx, task, opts)
	return res, execError(err)
}

// execError maps exec's errors to coded errors (the rest as controlError).
func execError(err error) error {
	if errors.Is(err, taskrunner.ErrExecUnsupported) {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "%v", err)
	}
	return controlError(err)
}
