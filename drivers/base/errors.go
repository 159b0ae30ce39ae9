package base

import "errors"

// Errors shared by all drivers; compare with errors.Is (they survive the
// gRPC hop as codes, see package drivers).
var (
	ErrTaskNotFound    = errors.New("drivers: task not found")
	ErrTaskExists      = errors.New("drivers: task already exists")
	ErrTaskRunning     = errors.New("drivers: task is still running")
	ErrDisabled        = errors.New("drivers: driver is disabled")
	ErrPluginShutdown  = errors.New("drivers: plugin process exited")
	ErrExitCodeUnknown = errors.New("drivers: task exited while unsupervised; exit status unknown")
	ErrNotSupported    = errors.New("drivers: not supported by this driver")
)
