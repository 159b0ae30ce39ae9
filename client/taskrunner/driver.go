package taskrunner

import (
	"context"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
)

// Driver is what a task runner needs from a driver plugin: the subset of
// drivers/base.Driver it calls (CONVENTIONS 2), which satisfies it.
type Driver interface {
	StartTask(cfg *base.TaskConfig) (*base.TaskHandle, error)
	WaitTask(ctx context.Context, taskID string) (<-chan *base.ExitResult, error)
	StopTask(taskID string, timeout time.Duration, signal string) error
	DestroyTask(taskID string, force bool) error
	RecoverTask(h *base.TaskHandle) error
}
