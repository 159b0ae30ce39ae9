package base

// TaskDiscoverer is the optional interface of a driver that can find a
// task again without its handle: the client lost its state (a corrupt or
// deleted state file) while the task kept running. The client calls it
// before it would start a task for which it holds no handle, so that a
// task is re-attached rather than run a second time.
type TaskDiscoverer interface {
	// DiscoverTask looks for a task of cfg.AllocID named cfg.Name, started
	// by an earlier client or plugin process, that still runs. The driver
	// identifies it only by marks it set itself and a task cannot forge
	// (docker: the container's labels; exec/raw_exec: the handle file it
	// keeps outside the task's dirs, checked against the live process).
	// When one runs, it is re-attached as by RecoverTask and its handle is
	// returned: Config is cfg with the original task ID. When none runs the
	// error wraps ErrTaskNotFound; a driver that cannot tell answers
	// ErrNotSupported.
	DiscoverTask(cfg *TaskConfig) (*TaskHandle, error)
}
