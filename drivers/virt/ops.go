package virt

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/digitalocean/go-libvirt"

	"github.com/nomadish/nomadish/drivers/base"
)

// WaitTask: see base.Driver.
func (d *Driver) WaitTask(ctx context.Context, taskID string) (<-chan *base.ExitResult, error) {
	return d.tasks.Wait(ctx, taskID)
}

// StopTask presses the guest's ACPI power button and destroys the domain
// when it has not powered off after graceful_shutdown_timeout (when set) or
// timeout (the task's kill_timeout). The signal is not used: a VM has no
// process to signal.
func (d *Driver) StopTask(taskID string, timeout time.Duration, signal string) error {
	return d.tasks.Stop(taskID, signal, func(t *task, _ syscall.Signal) error {
		grace := timeout
		if t.state.GracefulTimeout > 0 {
			grace = t.state.GracefulTimeout
		}
		return d.stop(t, grace)
	})
}

// DestroyTask: see base.Driver. It destroys a running domain when force,
// then undefines it and removes its disk, seed ISO and work dir.
func (d *Driver) DestroyTask(taskID string, force bool) error {
	return d.tasks.Destroy(taskID, force, d.kill, d.release)
}

// InspectTask: see base.Driver. DriverAttributes hold the domain's name and
// UUID and, while it runs, its block and network counters (ioCounters).
func (d *Driver) InspectTask(taskID string) (*base.TaskStatus, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	attrs := map[string]string{}
	select {
	case <-t.exit.Done():
	default:
		if l, err := d.conn.get(); err == nil {
			attrs = ioCounters(l, t.dom)
		}
	}
	attrs["domain"], attrs["uuid"] = t.state.Domain, t.state.UUID
	return t.exit.Status(&base.TaskStatus{ID: taskID, Name: t.cfg.Name, State: base.TaskStateRunning,
		StartedAt: t.state.StartedAt, DriverAttributes: attrs}), nil
}

// ErrSignal is wrapped by SignalTask for a signal a VM has no meaning for.
var ErrSignal = errors.New("virt: signal not supported (SIGTERM, SIGINT and SIGPWR press the ACPI power button, SIGHUP reboots, SIGKILL destroys)")

// SignalTask maps signals to what a VM understands: SIGTERM, SIGINT and
// SIGPWR are an ACPI shutdown request, SIGHUP an ACPI reboot, SIGKILL a
// destroy; others are an error wrapping ErrSignal.
func (d *Driver) SignalTask(taskID string, signal string) error {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return err
	}
	sig, err := base.ParseSignal(signal, syscall.SIGTERM)
	if err != nil {
		return err
	}
	l, err := d.conn.get()
	if err != nil {
		return err
	}
	switch sig {
	case syscall.SIGTERM, syscall.SIGINT, syscall.SIGPWR:
		err = l.DomainShutdownFlags(t.dom, libvirt.DomainShutdownAcpiPowerBtn)
	case syscall.SIGHUP:
		err = l.DomainReboot(t.dom, libvirt.DomainRebootAcpiPowerBtn)
	case syscall.SIGKILL:
		err = l.DomainDestroyFlags(t.dom, libvirt.DomainDestroyDefault)
	default:
		return fmt.Errorf("task %q: %s: %w", taskID, signal, ErrSignal)
	}
	if err != nil {
		return fmt.Errorf("task %q: signal %s to domain %s: %w", taskID, signal, t.state.Domain, err)
	}
	return nil
}

// RecoverTask re-attaches to a domain by the UUID in the handle (its name
// for a handle without one) and resumes copying its console. A domain that
// is gone is registered as exited with ErrExitCodeUnknown.
func (d *Driver) RecoverTask(h *base.TaskHandle) error {
	if h == nil || h.Config == nil {
		return errors.New("virt: recover: handle without config")
	}
	var st driverState
	if err := json.Unmarshal(h.DriverState, &st); err != nil || st.Domain == "" {
		return fmt.Errorf("virt: recover task %q: bad driver state: %v", h.Config.ID, err)
	}
	l, err := d.conn.get()
	if err != nil {
		return fmt.Errorf("virt: recover task %q: %w", h.Config.ID, err)
	}
	dom, err := lookup(l, st)
	gone := isNoDomain(err)
	if err != nil && !gone {
		return fmt.Errorf("virt: recover task %q: looking up domain %s: %w", h.Config.ID, st.Domain, err)
	}
	var startErr error
	d.tasks.AddNew(h.Config.ID, func() *task {
		t := newTask(h.Config, st, dom)
		if gone {
			t.console = &consoleCopier{cancel: func() {}, done: closed()}
			t.exit.Set(&base.ExitResult{Err: base.ErrExitCodeUnknown})
			return t
		}
		files, maxBytes := h.Config.LogLimits()
		if t.console, startErr = startConsole(st.Console, h.Config.StdoutPath, files, maxBytes); startErr != nil {
			t.console = &consoleCopier{cancel: func() {}, done: closed()}
		}
		go d.watch(t)
		return t
	})
	if startErr != nil {
		d.logger.Warn("recovered VM's console not captured", "task", h.Config.ID, "error", startErr)
	}
	return nil
}

// lookup finds the domain of st by UUID, or by name when st has none.
func lookup(l *libvirt.Libvirt, st driverState) (libvirt.Domain, error) {
	if b, err := hex.DecodeString(st.UUID); err == nil && len(b) == len(libvirt.UUID{}) {
		var u libvirt.UUID
		copy(u[:], b)
		return l.DomainLookupByUUID(u)
	}
	return l.DomainLookupByName(st.Domain)
}

func closed() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

func jsonState(st driverState) ([]byte, error) { return json.Marshal(st) }
