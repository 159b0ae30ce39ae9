package drivers

import "github.com/nomadish/nomadish/drivers/base"

// The driver contract, re-exported from drivers/base (see there for docs).
type (
	Driver            = base.Driver
	ResourceUpdater   = base.ResourceUpdater
	TaskDiscoverer    = base.TaskDiscoverer
	Fingerprint       = base.Fingerprint
	HealthState       = base.HealthState
	Capabilities      = base.Capabilities
	FSIsolation       = base.FSIsolation
	TaskConfig        = base.TaskConfig
	Resources         = base.Resources
	TaskHandle        = base.TaskHandle
	TaskState         = base.TaskState
	ExitResult        = base.ExitResult
	TaskStatus        = base.TaskStatus
	TaskResourceUsage = base.TaskResourceUsage
	CPUUsage          = base.CPUUsage
	MemoryUsage       = base.MemoryUsage
	ExecStreamer      = base.ExecStreamer
	ExecOptions       = base.ExecOptions
	TerminalSize      = base.TerminalSize
)

// Re-exported constants.
const (
	HealthUndetected  = base.HealthUndetected
	HealthUnhealthy   = base.HealthUnhealthy
	HealthHealthy     = base.HealthHealthy
	TaskStateUnknown  = base.TaskStateUnknown
	TaskStateRunning  = base.TaskStateRunning
	TaskStateExited   = base.TaskStateExited
	TaskHandleVersion = base.TaskHandleVersion
)

// Re-exported errors (compare with errors.Is).
var (
	ErrTaskNotFound    = base.ErrTaskNotFound
	ErrTaskExists      = base.ErrTaskExists
	ErrTaskRunning     = base.ErrTaskRunning
	ErrDisabled        = base.ErrDisabled
	ErrPluginShutdown  = base.ErrPluginShutdown
	ErrExitCodeUnknown = base.ErrExitCodeUnknown
	ErrNotSupported    = base.ErrNotSupported
)
