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
	t, err := d.task(taskID)
	if err != nil {
		return nil, err
	}
	return t.exit.Wait(ctx), nil
}

// StopTask asks the task to end; it exits after kill_after (bounded by
// timeout, as a real SIGKILL would).
func (d *Driver) StopTask(taskID string, timeout time.Duration, signal string) error {
	t, err := d.task(taskID)
	if err != nil {
		return err
	}
	sig, err := base.ParseSignal(signal, syscall.SIGTERM)
	if err != nil {
		return err
	}
	req := stopRequest{sig: sig, delay: t.tc.KillAfter}
	if t.tc.KillAfter > timeout {
		req = stopRequest{sig: syscall.SIGKILL, delay: timeout}
	}
	select {
	case t.stopReq <- req:
	default: // already asked
	}
	<-t.exit.Done()
	return nil
}

// DestroyTask: see base.Driver.
func (d *Driver) DestroyTask(taskID string, force bool) error {
	t, err := d.task(taskID)
	if err != nil {
		return err
	}
	select {
	case <-t.exit.Done():
	default:
		if !force {
			return fmt.Errorf("task %q: %w", taskID, base.ErrTaskRunning)
		}
		select {
		case t.stopReq <- stopRequest{sig: syscall.SIGKILL}:
		default:
		}
		<-t.exit.Done()
	}
	d.mu.Lock()
	delete(d.tasks, taskID)
	d.mu.Unlock()
	return nil
}

// InspectTask: see base.Driver.
func (d *Driver) InspectTask(taskID string) (*base.TaskStatus, error) {
	t, err := d.task(taskID)
	if err != nil {
		return nil, err
	}
	st := &base.TaskStatus{ID: taskID, Name: t.cfg.Name, State: base.TaskStateRunning, StartedAt: t.startedAt}
	if res, at := t.exit.Result(); res != nil {
		st.State, st.ExitResult, st.CompletedAt = base.TaskStateExited, res, at
	}
	return st, nil
}

// SignalTask accepts any known signal and does nothing.
func (d *Driver) SignalTask(taskID string, signal string) error {
	if _, err := d.task(taskID); err != nil {
		return err
	}
	_, err := base.ParseSignal(signal, syscall.SIGTERM)
	return err
}

// TaskStats sends zero usage every interval until ctx ends or the task exits.
func (d *Driver) TaskStats(ctx context.Context, taskID string, interval time.Duration) (<-chan *base.TaskResourceUsage, error) {
	t, err := d.task(taskID)
	if err != nil {
		return nil, err
	}
	interval = max(interval, 10*time.Millisecond)
	ch := make(chan *base.TaskResourceUsage)
	go func() {
		defer close(ch)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case ch <- &base.TaskResourceUsage{Timestamp: time.Now(), Pids: 1}:
			case <-ctx.Done():
				return
			case <-t.exit.Done():
				return
			}
			select {
			case <-tick.C:
			case <-ctx.Done():
				return
			case <-t.exit.Done():
				return
			}
		}
	}()
	return ch, nil
}

// RecoverTask restarts the timer with what is left of run_for.
func (d *Driver) RecoverTask(h *base.TaskHandle) error {
	if h == nil || h.Config == nil {
		return fmt.Errorf("%s: recover: handle without config", Name)
	}
	if _, err := d.task(h.Config.ID); err == nil {
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
