package docker

import (
	"context"
	"encoding/json"
	"fmt"
	"syscall"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/errdefs"

	"github.com/nomadish/nomadish/drivers/base"
)

// WaitTask: see base.Driver.
func (d *Driver) WaitTask(ctx context.Context, taskID string) (<-chan *base.ExitResult, error) {
	return d.tasks.Wait(ctx, taskID)
}

// StopTask sends signal (default SIGTERM) to the container's main process,
// waits up to timeout, then sends SIGKILL. The signal is sent with
// ContainerKill rather than ContainerStop, whose signal option engines
// before API 1.42 ignore.
func (d *Driver) StopTask(taskID string, timeout time.Duration, signal string) error {
	return d.tasks.Stop(taskID, signal, func(t *task, sig syscall.Signal) error {
		if err := t.kill(killArg(sig)); err != nil {
			return err
		}
		select {
		case <-t.exit.Done():
			return nil
		case <-time.After(timeout):
		}
		t.killed.Store(true)
		if err := t.kill("SIGKILL"); err != nil {
			return err
		}
		select {
		case <-t.exit.Done():
			return nil
		case <-time.After(callTimeout):
			return fmt.Errorf("task %q: container %s still running after SIGKILL", taskID, t.state.ContainerID)
		}
	})
}

// killArg is sig as ContainerKill takes it (its number).
func killArg(sig syscall.Signal) string { return fmt.Sprintf("%d", int(sig)) }

// kill sends sig to the container; a container that already stopped is
// not an error.
func (t *task) kill(sig string) error {
	select {
	case <-t.exit.Done():
		return nil
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	err := t.cli.ContainerKill(ctx, t.state.ContainerID, sig)
	if err == nil || errdefs.IsConflict(err) || errdefs.IsNotFound(err) {
		return nil
	}
	return fmt.Errorf("signalling container %s: %w", t.state.ContainerID, err)
}

// DestroyTask removes the container (and, with gc { image = true }, tries
// to remove its image, which fails harmlessly while other containers use it).
func (d *Driver) DestroyTask(taskID string, force bool) error {
	return d.tasks.Destroy(taskID, force, func(t *task) error {
		if err := t.kill("SIGKILL"); err != nil {
			return err
		}
		select {
		case <-t.exit.Done():
		case <-time.After(callTimeout):
		}
		return nil
	}, d.remove)
}

// remove stops the task's log copy and removes its container (and, with
// gc { image = true }, its image).
func (d *Driver) remove(t *task) error {
	t.stopLogs()
	<-t.logsDone
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	err := t.cli.ContainerRemove(ctx, t.state.ContainerID, container.RemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !errdefs.IsNotFound(err) {
		return fmt.Errorf("removing container %s: %w", t.state.ContainerID, err)
	}
	_, pc, _ := d.client()
	if pc.GCImage && t.state.ImageID != "" {
		if _, err := t.cli.ImageRemove(ctx, t.state.ImageID, image.RemoveOptions{}); err != nil {
			d.logger.Debug("image not removed", "image", t.state.Image, "error", err)
		}
	}
	return nil
}

// InspectTask: see base.Driver.
func (d *Driver) InspectTask(taskID string) (*base.TaskStatus, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	return t.exit.Status(&base.TaskStatus{
		ID: taskID, Name: t.cfg.Name, State: base.TaskStateRunning, StartedAt: t.state.StartedAt,
		DriverAttributes: map[string]string{"container_id": t.state.ContainerID, "image": t.state.Image, "image_id": t.state.ImageID},
	}), nil
}

// SignalTask: see base.Driver.
func (d *Driver) SignalTask(taskID string, signal string) error {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return err
	}
	sig, err := base.ParseSignal(signal, syscall.SIGTERM)
	if err != nil {
		return err
	}
	return t.kill(killArg(sig))
}

// RecoverTask re-attaches to the container named by the handle's driver
// state. A running container's log copy resumes from the last write to its
// log files; a container that exited meanwhile reports its real exit code.
// A removed container is ErrTaskNotFound.
func (d *Driver) RecoverTask(h *base.TaskHandle) error {
	if h == nil || h.Config == nil {
		return fmt.Errorf("docker: recover: handle without config")
	}
	var st driverState
	if err := json.Unmarshal(h.DriverState, &st); err != nil || st.ContainerID == "" {
		return fmt.Errorf("docker: recover task %q: bad driver state: %v", h.Config.ID, err)
	}
	if _, err := d.tasks.Get(h.Config.ID); err == nil {
		return nil
	}
	if h.Config.Network != nil {
		d.trackInfra(h.Config.Network.Labels[SandboxLabel]) // network.go
	}
	cli, _, err := d.client()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	info, err := cli.ContainerInspect(ctx, st.ContainerID)
	if errdefs.IsNotFound(err) {
		return fmt.Errorf("task %q: container %s: %w", h.Config.ID, st.ContainerID, base.ErrTaskNotFound)
	}
	if err != nil {
		return fmt.Errorf("docker: recover task %q: %w", h.Config.ID, err)
	}
	t := &task{cfg: h.Config, cli: cli, logger: d.logger, exit: base.NewExit(), state: st}
	if info.State != nil && info.State.Running {
		t.startLogs(true)
	} else {
		t.logsDone, t.stopLogs = make(chan struct{}), func() {}
		close(t.logsDone)
	}
	if err := d.tasks.Add(h.Config.ID, t); err != nil {
		t.stopLogs() // recovered meanwhile, or being started
		return nil
	}
	go t.watch()
	return nil
}
