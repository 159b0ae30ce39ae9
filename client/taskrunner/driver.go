package taskrunner

import (
	"context"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
)

// Driver is what a task runner needs from a driver plugin: the subset of
// drivers.Driver it calls (CONVENTIONS 2). drivers.Driver satisfies it.
type Driver interface {
	StartTask(cfg *TaskConfig) (*TaskHandle, error)
	WaitTask(ctx context.Context, taskID string) (<-chan *ExitResult, error)
	StopTask(taskID string, timeout time.Duration, signal string) error
	DestroyTask(taskID string, force bool) error
	RecoverTask(h *TaskHandle) error
}

// The driver plugin contract's data types (drivers/base, re-exported by
// package drivers).
type (
	TaskConfig = base.TaskConfig
	TaskHandle = base.TaskHandle
	ExitResult = base.ExitResult
)
