package client

import (
	"context"
	"errors"

	"github.com/nomadish/nomadish/client/allocrunner"
	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// Client-side controls of a local allocation: alloc signal, alloc restart
// and its resource usage (the agent's /v1/client/allocation/:id/... API).

// SignalAlloc sends signal to task of allocation allocID, or to every
// running task when task is empty. Errors are *structs.CodedError: unknown
// allocation or task 404; bad signal, task not running, or a driver that
// cannot signal 400; anything else from the driver 500.
func (c *Client) SignalAlloc(allocID, task, signal string) error {
	ar := c.runner(allocID)
	if ar == nil {
		return unknownAlloc(allocID)
	}
	return controlError(ar.Signal(task, signal))
}

// RestartAlloc restarts task of allocation allocID in place, or every
// running task when task is empty, without counting against the restart
// policy. It returns once the old instances stopped (their new instances
// start right after), or when ctx ends. Errors as SignalAlloc's.
func (c *Client) RestartAlloc(ctx context.Context, allocID, task string) error {
	ar := c.runner(allocID)
	if ar == nil {
		return unknownAlloc(allocID)
	}
	return controlError(ar.Restart(ctx, task))
}

// AllocStats returns the latest resource usage of each running task of
// allocID and their sum (Nomad's AllocResourceUsage); a task with no
// sample yet is left out. CPU TotalTicks is the MHz used: Percent of one
// core's share of the node's MHz. An unknown allocation is a 404.
func (c *Client) AllocStats(allocID string) (*structs.AllocResourceUsage, error) {
	ar := c.runner(allocID)
	if ar == nil {
		return nil, unknownAlloc(allocID)
	}
	mhzPerCore := 0.0
	if cpu := c.Node().NodeResources; cpu != nil && cpu.Cpu.TotalCpuCores > 0 {
		mhzPerCore = float64(cpu.Cpu.CpuShares) / float64(cpu.Cpu.TotalCpuCores)
	}
	tasks := map[string]*structs.TaskResourceUsage{}
	for name, u := range ar.Stats() {
		tasks[name] = TaskUsage(u, mhzPerCore)
	}
	return structs.SumAllocUsage(tasks), nil
}

// TaskUsage converts a driver sample into Nomad's TaskResourceUsage:
// memory RSS and swap, CPU percentages of one core, and TotalTicks (MHz
// used) from mhzPerCore.
func TaskUsage(u *base.TaskResourceUsage, mhzPerCore float64) *structs.TaskResourceUsage {
	return &structs.TaskResourceUsage{
		Timestamp: u.Timestamp.UnixNano(),
		ResourceUsage: &structs.ResourceUsage{
			MemoryStats: &structs.MemoryStats{RSS: u.Memory.RSS, Swap: u.Memory.Swap,
				Measured: []string{structs.MeasuredRSS, structs.MeasuredSwap}},
			CpuStats: &structs.CpuStats{
				Percent: u.CPU.Percent, UserMode: u.CPU.UserPercent, SystemMode: u.CPU.SystemPercent,
				TotalTicks: u.CPU.Percent / 100 * mhzPerCore,
				Measured: []string{structs.MeasuredSystemMode, structs.MeasuredUserMode,
					structs.MeasuredPercent, structs.MeasuredTotalTicks},
			},
		},
	}
}

func unknownAlloc(id string) error {
	return structs.NewCodedError(structs.ErrCodeNotFound, "unknown allocation %q on this client", id)
}

// controlError maps the alloc and task runners' errors to coded errors.
func controlError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, allocrunner.ErrUnknownTask):
		return structs.NewCodedError(structs.ErrCodeNotFound, "%v", err)
	case errors.Is(err, taskrunner.ErrBadSignal), errors.Is(err, taskrunner.ErrTaskNotRunning),
		errors.Is(err, taskrunner.ErrSignalsUnsupported):
		return structs.NewCodedError(structs.ErrCodeBadRequest, "%v", err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return structs.NewCodedError(structs.ErrCodeInternal, "request ended before the task stopped: %v", err)
	}
	return err
}

// AllocDir returns the directory of a local allocation
// (<alloc_dir>/<alloc-id>) for the fs endpoints (client/allocfs). A
// *structs.CodedError 404 when this client does not run it.
func (c *Client) AllocDir(allocID string) (string, error) {
	ar := c.runner(allocID)
	if ar == nil {
		return "", structs.NewCodedError(structs.ErrCodeNotFound, "unknown allocation %q", allocID)
	}
	return ar.AllocDir().Dir, nil
}
