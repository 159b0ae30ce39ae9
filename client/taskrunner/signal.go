package taskrunner

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// Errors of the user-facing task controls (Signal, Restart, Stats); the
// client turns them into coded HTTP errors.
var (
	// ErrTaskNotRunning: the task has no running instance to act on.
	ErrTaskNotRunning = errors.New("taskrunner: task not running")
	// ErrBadSignal: the signal name is not one the client knows.
	ErrBadSignal = errors.New("taskrunner: unknown signal")
	// ErrSignalsUnsupported: the task's driver cannot send signals.
	ErrSignalsUnsupported = errors.New("taskrunner: driver cannot signal tasks")
)

// signaler is the optional driver method Signal calls (base.Driver has
// it; the pluginmgr proxy forwards it).
type signaler interface {
	SignalTask(taskID string, signal string) error
}

// CanonicalSignal turns "usr1", "SIGUSR1" or "USR1" into "SIGUSR1"; an
// empty or unknown name is an error wrapping ErrBadSignal.
func CanonicalSignal(name string) (string, error) {
	n := strings.ToUpper(strings.TrimSpace(name))
	n = "SIG" + strings.TrimPrefix(n, "SIG")
	if _, err := base.ParseSignal(n, 0); err != nil || n == "SIG" {
		return "", fmt.Errorf("%w %q", ErrBadSignal, name)
	}
	return n, nil
}

// Signal sends sig (e.g. "SIGUSR1", "usr1") to the running
// task, recording a "Signaling" event first ("Task being sent signal
// SIGUSR1"). Safe from any goroutine. Errors: ErrBadSignal, ErrTaskNotRunning
// (dead, pending or between restarts), ErrSignalsUnsupported, or the
// driver's error (wrapping base.ErrTaskNotFound when the task just exited).
func (tr *TaskRunner) Signal(sig string) error {
	name, err := CanonicalSignal(sig)
	if err != nil {
		return err
	}
	s, ok := tr.cfg.Driver.(signaler)
	if !ok {
		return fmt.Errorf("%w (driver %q)", ErrSignalsUnsupported, tr.cfg.Task.Driver)
	}
	h := tr.Handle()
	if h == nil || h.Config == nil || tr.State().State != structs.TaskStateRunning {
		return ErrTaskNotRunning
	}
	ev := structs.NewTaskEvent(structs.TaskSignaling, tr.now())
	ev.Details["signal"] = name
	tr.emit(ev, "Task being sent signal "+name, nil)
	if err := s.SignalTask(h.Config.ID, name); err != nil {
		if errors.Is(err, base.ErrNotSupported) {
			return fmt.Errorf("%w (driver %q): %v", ErrSignalsUnsupported, tr.cfg.Task.Driver, err)
		}
		if errors.Is(err, base.ErrTaskNotFound) {
			return fmt.Errorf("%w: %v", ErrTaskNotRunning, err)
		}
		return fmt.Errorf("signalling task %q: %w", tr.cfg.Task.Name, err)
	}
	return nil
}
