package mock

import (
	"context"
	"encoding/json"
	"fmt"
	"syscall"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/logging"
)

// writeLog writes s to <path>.0 (through a Rotator, like real drivers).
func writeLog(path, s string) {
	if path == "" || s == "" {
		return
	}
	r, err := logging.NewRotator(path, base.DefaultLogMaxFiles, base.DefaultLogMaxFileSizeMB<<20)
	if err != nil {
		return
	}
	_, _ = r.Write([]byte(s))
	_ = r.Close()
}

// WaitTask: see base.Driver.
func (d *Driver) WaitTask(ctx context.Context, taskID string) (<-chan *base.ExitResult, error) {
	return d.tasks.Wait(ctx, taskID)
}

// StopTask asks the task to end; it exits after kill_after (bounded by
// timeout, as a real SIGKILL would).
func (d *Driver) StopTask(taskID string, timeout time.Duration, signal string) error {
	return d.tasks.Stop(taskID, signal, func(t *task, sig syscall.Signal) error {
		req := stopRequest{sig: sig, delay: t.tc.KillAfter}
		if t.tc.KillAfter > timeout {
			req = stopRequest{sig: syscall.SIGKILL, delay: timeout}
		}
		t.ask(req)
		<-t.exit.Done()
		return nil
	})
}

// ask sends req to the task's goroutine unless an earlier request waits.
func (t *task) ask(req stopRequest) {
	select {
	case t.stopReq <- req:
	default: // already asked
	}
}

// DestroyTask: see base.Driver.
func (d *Driver) DestroyTask(taskID string, force bool) error {
	return d.tasks.Destroy(taskID, force, func(t *task) error {
		t.ask(stopRequest{sig: syscall.SIGKILL})
		<-t.exit.Done()
		return nil
	}, nil)
}

// InspectTask: see base.Driver.
func (d *Driver) InspectTask(taskID string) (*base.TaskStatus, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	return t.exit.Status(&base.TaskStatus{ID: taskID, Name: t.cfg.Name, State: base.TaskStateRunning, StartedAt: t.startedAt}), nil
}

// SignalTask accepts any known signal and does nothing.
func (d *Driver) SignalTask(taskID string, signal string) error {
	if _, err := d.tasks.Get(taskID); err != nil {
		return err
	}
	_, err := base.ParseSignal(signal, syscall.SIGTERM)
	return err
}

// TaskStats sends zero usage every interval until ctx ends or the task exits.
func (d *Driver) TaskStats(ctx context.Context, taskID string, interval time.Duration) (<-chan *base.TaskResourceUsage, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	zero := func(now time.Time) *base.TaskResourceUsage { return &base.TaskResourceUsage{Timestamp: now, Pids: 1} }
	return base.StreamUsage(ctx, t.exit.Done(), base.Every(max(interval, 10*time.Millisecond), zero))
}

// RecoverTask restarts the timer with what is left of run_for.
func (d *Driver) RecoverTask(h *base.TaskHandle) error {
	if h == nil || h.Config == nil {
		return fmt.Errorf("%s: recover: handle without config", Name)
	}
	if _, err := d.tasks.Get(h.Config.ID); err == nil {
		return nil
	}
	var st mockState
	if err := json.Unmarshal(h.DriverState, &st); err != nil {
		return fmt.Errorf("%s: recover task %q: bad driver state: %w", Name, h.Config.ID, err)
	}
	tc, err := parseConfig(h.Config.Config)
	if err != nil {
		return fmt.Errorf("%s: recover task %q: %w", Name, h.Config.ID, err)
	}
	return d.add(h.Config, tc, st.StartedAt, tc.RunFor-time.Since(st.StartedAt))
}
