package client

import (
	"context"
	"io"

	"github.com/nomadish/nomadish/client/logstream"
	"github.com/nomadish/nomadish/structs"
)

// Logs writes a task's stdout or stderr to w, across the rotated files
// <allocdir>/alloc/logs/<task>.<logType>.<n>, starting offset bytes from
// origin ("start" or "end"). With follow it keeps writing new data until ctx
// ends or the task is dead and everything is written. Errors: unknown alloc
// or task => *structs.CodedError 404; bad logType or origin => 400.
func (c *Client) Logs(ctx context.Context, allocID, task, logType, origin string, offset int64, follow bool, w io.Writer) error {
	ar := c.runner(allocID)
	if ar == nil {
		return structs.NewCodedError(structs.ErrCodeNotFound, "unknown allocation %q", allocID)
	}
	if logType != "stdout" && logType != "stderr" {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "log type must be \"stdout\" or \"stderr\", not %q", logType)
	}
	if origin == "" {
		origin = logstream.OriginStart
	}
	if origin != logstream.OriginStart && origin != logstream.OriginEnd {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "origin must be \"start\" or \"end\", not %q", origin)
	}
	if offset < 0 {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "offset can't be negative")
	}
	if ar.TaskState(task) == nil {
		return structs.NewCodedError(structs.ErrCodeNotFound, "unknown task %q in allocation %q", task, allocID)
	}
	dead := func() bool {
		s := ar.TaskState(task)
		return s == nil || s.State == structs.TaskStateDead
	}
	return logstream.Stream(ctx, logstream.Request{Dir: ar.AllocDir().LogDir, Task: task, LogType: logType,
		Origin: origin, Offset: offset, Follow: follow, Done: dead}, w)
}
