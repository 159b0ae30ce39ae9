package docker

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/docker/docker/errdefs"
	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/drivers/base"
)

// Timeouts of engine calls.
const (
	pullTimeout  = 10 * time.Minute
	callTimeout  = 30 * time.Second
	logsDrainMax = 5 * time.Second
)

// driverState is the handle's DriverState (JSON).
type driverState struct {
	ContainerID string
	Image       string
	ImageID     string
	StartedAt   time.Time
}

// task is one container. state is set before the task is registered and
// not changed after; exit is set once by watch.
type task struct {
	cfg    *base.TaskConfig
	state  driverState
	cli    *client.Client
	logger hclog.Logger
	exit   *base.Exit
	// logsDone is closed when the log copy ended (the container stopped,
	// or stopLogs was called); stopLogs cancels it.
	logsDone chan struct{}
	stopLogs context.CancelFunc
	// killed is set when StopTask escalated to SIGKILL: an exit 137 is then
	// the driver's doing, not the kernel's OOM killer (lateOOM).
	killed atomic.Bool
}

// StartTask creates and starts the task's container (see package doc).
func (d *Driver) StartTask(cfg *base.TaskConfig) (*base.TaskHandle, error) {
	tc, err := parseTaskConfig(cfg.Config)
	if err != nil {
		return nil, fmt.Errorf("task %q config: %w", cfg.Name, err)
	}
	cli, pc, err := d.client()
	if err != nil {
		return nil, err
	}
	if cfg.Network != nil {
		d.trackInfra(cfg.Network.Labels[SandboxLabel]) // network.go
	}
	t, err := d.tasks.Start(cfg.ID, func() (*task, error) { return d.start(cli, cfg, tc, pc) })
	if err != nil {
		return nil, err
	}
	b, _ := json.Marshal(t.state)
	d.logger.Debug("container started", "task", cfg.ID, "container", t.state.ContainerID)
	return &base.TaskHandle{Version: base.TaskHandleVersion, Config: cfg, State: base.TaskStateRunning, DriverState: b}, nil
}

// start checks the task's options against the plugin config (refusing
// before anything is pulled or created), pulls the image if needed, creates the container (replacing a
// stopped one of the same name), starts it and its log copy and watcher.
func (d *Driver) start(cli *client.Client, cfg *base.TaskConfig, tc *taskConfig, pc pluginConfig) (*task, error) {
	// The config is checked before the pull: a refused option costs nothing.
	cc, hc, err := containerConfig(cfg, tc, pc)
	if err != nil {
		return nil, fmt.Errorf("task %q config: %w", cfg.Name, err)
	}
	pctx, cancel := context.WithTimeout(context.Background(), pullTimeout)
	imageID, err := ensureImage(pctx, cli, tc)
	cancel()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	name := ContainerName(cfg)
	created, err := cli.ContainerCreate(ctx, cc, hc, nil, nil, name)
	if errdefs.IsConflict(err) {
		if rerr := removeStale(ctx, cli, name, cfg.ID); rerr != nil {
			return nil, fmt.Errorf("creating container %s: %w (removing the old one: %v)", name, err, rerr)
		}
		created, err = cli.ContainerCreate(ctx, cc, hc, nil, nil, name)
	}
	if err != nil {
		return nil, fmt.Errorf("creating container %s: %w", name, err)
	}
	if err := cli.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		_ = cli.ContainerRemove(ctx, created.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
		return nil, fmt.Errorf("starting container %s: %w", name, err)
	}
	t := &task{cfg: cfg, cli: cli, logger: d.logger, exit: base.NewExit(),
		state: driverState{ContainerID: created.ID, Image: tc.Image, ImageID: imageID, StartedAt: time.Now()}}
	t.startLogs(false)
	go t.watch()
	return t, nil
}

// ContainerName is the container of a task: <task>-<alloc id>.
func ContainerName(cfg *base.TaskConfig) string { return cfg.Name + "-" + cfg.AllocID }

// removeStale removes a container of the same name: a previous run of the
// task, or a running one of this very task (same task ID label) whose
// handle was lost (the client died between create and persisting it), which
// the client has decided to run afresh. Another running container is an
// error.
func removeStale(ctx context.Context, cli *client.Client, name, taskID string) error {
	info, err := cli.ContainerInspect(ctx, name)
	if err != nil {
		return err
	}
	if info.State != nil && info.State.Running && (info.Config == nil || info.Config.Labels[LabelTaskID] != taskID) {
		return fmt.Errorf("container %s is running", name)
	}
	return cli.ContainerRemove(ctx, info.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
}

// watch waits for the container to stop and records its exit once the
// logs it wrote are in the log files.
func (t *task) watch() {
	res := t.waitExit()
	select {
	case <-t.logsDone:
	case <-time.After(logsDrainMax):
		t.logger.Warn("container logs still streaming after exit", "task", t.cfg.ID)
	}
	t.exit.Set(res)
}

// waitExit blocks until the container is not running and returns its
// exit code and whether it was OOM-killed. A container removed behind the
// driver's back exits with ErrExitCodeUnknown.
func (t *task) waitExit() *base.ExitResult {
	for {
		waitCh, errCh := t.cli.ContainerWait(context.Background(), t.state.ContainerID, container.WaitConditionNotRunning)
		var err error
		select {
		case <-waitCh:
		case err = <-errCh:
		}
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		info, ierr := t.cli.ContainerInspect(ctx, t.state.ContainerID)
		cancel()
		switch {
		case errdefs.IsNotFound(ierr):
			return &base.ExitResult{ExitCode: -1, Err: fmt.Errorf("container %s removed: %w", t.state.ContainerID, base.ErrExitCodeUnknown)}
		case ierr == nil && info.State != nil && !info.State.Running && !info.State.Restarting:
			return &base.ExitResult{ExitCode: info.State.ExitCode, OOMKilled: info.State.OOMKilled || t.lateOOM(info.State.ExitCode)}
		}
		t.logger.Warn("waiting for container", "task", t.cfg.ID, "wait_error", err, "inspect_error", ierr)
		time.Sleep(time.Second)
	}
}

// oomRecheck is how often, and how many times, a SIGKILLed container is
// inspected again for the engine's OOM flag.
const (
	oomRecheckEvery = 100 * time.Millisecond
	oomRechecks     = 5
)

// lateOOM reports whether a container that died of SIGKILL (exit 137) was
// OOM-killed after all: the engine may handle the kernel's OOM event after
// the exit, so its flag is read again for up to half a second.
func (t *task) lateOOM(exitCode int) bool {
	if exitCode != 137 || t.killed.Load() {
		return false
	}
	for range oomRechecks {
		time.Sleep(oomRecheckEvery)
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		info, err := t.cli.ContainerInspect(ctx, t.state.ContainerID)
		cancel()
		if err != nil || info.State == nil {
			return false
		}
		if info.State.OOMKilled {
			return true
		}
	}
	return false
}
