package base

import (
	"context"
	"time"
)

// Driver runs tasks of one kind. The client calls it through a go-plugin
// subprocess (drivers.Launch) or in process (drivers.Catalog.New); both behave the
// same. All methods are safe for concurrent use.
type Driver interface {
	// Fingerprint reports the driver's health and node attributes such as
	// "driver.raw_exec" = "1". A disabled driver reports HealthUndetected.
	Fingerprint(ctx context.Context) (*Fingerprint, error)

	// SetConfig applies the plugin block of the agent config (for raw_exec,
	// {"enabled": true}). Called once before tasks start; unknown keys are
	// an error naming the key.
	SetConfig(cfg map[string]any) error

	// Capabilities lists optional features (signals, isolation).
	Capabilities() (*Capabilities, error)

	// StartTask starts the task and returns its handle; the caller persists
	// the handle to recover the task after a restart. Starting a task ID
	// that is already running returns ErrTaskExists.
	StartTask(cfg *TaskConfig) (*TaskHandle, error)

	// WaitTask returns a channel that receives exactly one ExitResult when
	// the task exits and is then closed. When ctx ends first the channel is
	// closed without a value. All stdout/stderr the task wrote before it
	// exited is in the log files before the result is sent. When the plugin
	// process dies the result carries Err wrapping ErrPluginShutdown.
	WaitTask(ctx context.Context, taskID string) (<-chan *ExitResult, error)

	// StopTask sends signal (default SIGTERM) to the task, waits up to
	// timeout for it to exit, then SIGKILLs its whole process group. It
	// returns once the task has exited.
	StopTask(taskID string, timeout time.Duration, signal string) error

	// DestroyTask forgets the task and frees its resources (cgroups, log
	// readers). A running task is an error (ErrTaskRunning) unless force,
	// which kills it first.
	DestroyTask(taskID string, force bool) error

	// InspectTask reports the task's state.
	InspectTask(taskID string) (*TaskStatus, error)

	// SignalTask sends a signal ("SIGHUP", "HUP", ...) to the task's main
	// process.
	SignalTask(taskID string, signal string) error

	// TaskStats sends resource usage every interval until ctx ends or the
	// task exits, then closes the channel.
	TaskStats(ctx context.Context, taskID string, interval time.Duration) (<-chan *TaskResourceUsage, error)

	// RecoverTask re-attaches to a task started by an earlier plugin
	// process, from the handle StartTask returned. It returns
	// ErrTaskNotFound-wrapping errors when the task is gone.
	RecoverTask(handle *TaskHandle) error
}

// HealthState is a driver's fingerprinted health.
type HealthState string

// Health states, as in Nomad.
const (
	HealthUndetected HealthState = "undetected"
	HealthUnhealthy  HealthState = "unhealthy"
	HealthHealthy    HealthState = "healthy"
)

// Fingerprint is a driver's health and the node attributes it contributes.
type Fingerprint struct {
	Health            HealthState
	HealthDescription string
	Attributes        map[string]string
}

// FSIsolation says how a driver isolates a task's filesystem.
type FSIsolation string

// Filesystem isolation kinds.
const (
	FSIsolationNone   FSIsolation = "none"
	FSIsolationChroot FSIsolation = "chroot"
	FSIsolationImage  FSIsolation = "image"
)

// Capabilities are the driver's optional features.
type Capabilities struct {
	SendSignals bool        // SignalTask works
	Exec        bool        // exec into a running task (not yet implemented by any driver)
	FSIsolation FSIsolation // filesystem isolation
	// ResourceLimits is true when the driver enforces CPU/memory limits
	// (exec with cgroups).
	ResourceLimits bool
	// UpdateResources is true when the driver implements ResourceUpdater:
	// a running task's limits change without a restart.
	UpdateResources bool
	// MustInitiateNetwork is true when the driver implements
	// NetworkManager and a group with one of its tasks gets its network
	// namespace from it (network.go).
	MustInitiateNetwork bool
}

// ResourceUpdater is the optional interface of a driver whose Capabilities
// say UpdateResources. The client calls it when an alloc is updated in place
// with new cpu or memory.
type ResourceUpdater interface {
	// UpdateTask applies res to the running task: a driver that enforces
	// limits changes them (exec: the task's cgroup), one that does not
	// accepts it as a no-op. An unknown task is ErrTaskNotFound.
	UpdateTask(taskID string, res *Resources) error
}
