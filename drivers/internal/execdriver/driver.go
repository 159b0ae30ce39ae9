// Package execdriver is the process-running core shared by the raw_exec and
// exec drivers: a task is a process in its own process group, its
// stdout/stderr go through FIFOs into rotated log files. exec adds isolation
// (Options.Isolate): a task init in new PID and mount namespaces, the task's
// user, a read-only host file system but for the task's dirs, and cgroup
// (v2, else v1) memory, cpu, pids and cpuset limits. Tasks are recovered
// after a plugin restart by pid + start time.
package execdriver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/internal/handlefile"
)

// Options make the core into a named driver.
type Options struct {
	Name string // "raw_exec" or "exec"
	// EnabledByDefault is the value of `enabled` before SetConfig.
	EnabledByDefault bool
	// Isolate runs each task isolated (the exec driver): see isolate.go.
	// Without root, namespaces or usable cgroups such a driver fingerprints
	// as undetected or unhealthy and starts no task: it never runs a task
	// unisolated. It also accepts the plugin config key pids_limit.
	Isolate bool
	// ConfigKeys are the plugin config keys accepted besides "enabled"
	// (Nomad's, accepted for compatibility and ignored).
	ConfigKeys []string
	Logger     hclog.Logger
}

// Driver implements base.Driver for raw_exec and exec.
type Driver struct {
	opts   Options
	logger hclog.Logger

	mu        sync.Mutex // guards enabled, pidsLimit, tasks
	enabled   bool
	pidsLimit int64 // pids.max of isolated tasks; 0: no limit
	tasks     map[string]*task
}

var _ base.Driver = (*Driver)(nil)

// New returns a driver with no tasks.
func New(opts Options) *Driver {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	return &Driver{opts: opts, logger: opts.Logger.Named(opts.Name), enabled: opts.EnabledByDefault,
		pidsLimit: DefaultPidsLimit, tasks: map[string]*task{}}
}

// SetConfig accepts {"enabled": bool}, with Isolate {"pids_limit": n}
// (pids.max of each task; 0 or less: no limit; default DefaultPidsLimit),
// and the driver's known keys (accepted, ignored).
func (d *Driver) SetConfig(cfg map[string]any) error {
	for k, v := range cfg {
		if k == "pids_limit" && d.opts.Isolate {
			n, ok := configInt(v)
			if !ok {
				return fmt.Errorf("%s plugin config: pids_limit must be a whole number, got %v", d.opts.Name, v)
			}
			d.mu.Lock()
			d.pidsLimit = max(n, 0)
			d.mu.Unlock()
			continue
		}
		if k == "enabled" {
			b, ok := v.(bool)
			if !ok {
				return fmt.Errorf("%s plugin config: enabled must be a bool, got %T", d.opts.Name, v)
			}
			d.mu.Lock()
			d.enabled = b
			d.mu.Unlock()
			continue
		}
		if !contains(d.opts.ConfigKeys, k) {
			return fmt.Errorf("%s plugin config: unknown key %q", d.opts.Name, k)
		}
	}
	return nil
}

// configInt reads a whole number decoded from HCL or JSON.
func configInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		return int64(n), float64(int64(n)) == n
	}
	return 0, false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (d *Driver) isEnabled() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.enabled
}

// Fingerprint: undetected when disabled or not on Linux, else healthy with
// driver.<name> = "1". An isolating driver (exec) is also undetected when
// not root and unhealthy when namespaces or cgroups are unusable, with the
// reason; when healthy it adds driver.<name>.cgroups = "v1" or "v2".
func (d *Driver) Fingerprint(ctx context.Context) (*base.Fingerprint, error) {
	if runtime.GOOS != "linux" {
		return &base.Fingerprint{Health: base.HealthUndetected, HealthDescription: "requires linux"}, nil
	}
	if !d.isEnabled() {
		return &base.Fingerprint{Health: base.HealthUndetected, HealthDescription: "disabled"}, nil
	}
	attrs := map[string]string{"driver." + d.opts.Name: "1"}
	if d.opts.Isolate {
		if os.Geteuid() != 0 {
			return &base.Fingerprint{Health: base.HealthUndetected, HealthDescription: "exec driver must run as root"}, nil
		}
		iso, err := checkIsolation()
		if err != nil {
			return &base.Fingerprint{Health: base.HealthUnhealthy, HealthDescription: err.Error()}, nil
		}
		attrs["driver."+d.opts.Name+".cgroups"] = map[bool]string{false: "v1", true: "v2"}[iso.cgroups.V2]
	}
	return &base.Fingerprint{Health: base.HealthHealthy, HealthDescription: "healthy", Attributes: attrs}, nil
}

// Capabilities: signals yes. FSIsolation stays "none" for exec too: the
// task sees the host's file system at the host's paths (read-only but for
// its dirs), not a chroot whose paths would differ. ResourceLimits is true
// for exec when the host can isolate.
func (d *Driver) Capabilities() (*base.Capabilities, error) {
	limits := false
	if d.opts.Isolate {
		_, err := checkIsolation()
		limits = err == nil
	}
	return &base.Capabilities{
		SendSignals:    true,
		Exec:           true, // ExecTaskStreaming (exec_task.go)
		FSIsolation:    base.FSIsolationNone,
		ResourceLimits: limits,
		// UpdateTask (update.go): new cgroup limits, or a no-op without.
		UpdateResources: true,
	}, nil
}

// StartTask runs config.command with config.args.
func (d *Driver) StartTask(cfg *base.TaskConfig) (*base.TaskHandle, error) {
	if !d.isEnabled() {
		return nil, fmt.Errorf("%s: %w", d.opts.Name, base.ErrDisabled)
	}
	command, args, err := parseTaskConfig(cfg.Config)
	if err != nil {
		return nil, fmt.Errorf("task %q config: %w", cfg.Name, err)
	}
	path, err := resolveCommand(command, cfg.TaskDir)
	if err != nil {
		return nil, err
	}
	var iso *isolation
	if d.opts.Isolate {
		if iso, err = checkIsolation(); err != nil {
			return nil, fmt.Errorf("%s: cannot isolate task %q: %w", d.opts.Name, cfg.Name, err)
		}
	}
	d.mu.Lock()
	pidsLimit := d.pidsLimit
	if _, ok := d.tasks[cfg.ID]; ok {
		d.mu.Unlock()
		return nil, fmt.Errorf("task %q: %w", cfg.ID, base.ErrTaskExists)
	}
	d.tasks[cfg.ID] = nil // reserve the ID while starting
	d.mu.Unlock()

	t, err := startTask(cfg, path, args, iso, pidsLimit, d.logger)
	d.mu.Lock()
	if err != nil {
		delete(d.tasks, cfg.ID)
	} else {
		d.tasks[cfg.ID] = t
	}
	d.mu.Unlock()
	if err != nil {
		return nil, err
	}
	d.logger.Debug("task started", "task", cfg.ID, "pid", t.state.Pid)
	state := t.encodeState()
	if err := handlefile.Write(d.opts.Name, cfg, state); err != nil { // for DiscoverTask
		d.logger.Warn("task cannot be re-discovered if the client loses its state", "task", cfg.ID, "error", err)
	}
	return &base.TaskHandle{Version: base.TaskHandleVersion, Config: cfg, State: base.TaskStateRunning, DriverState: state}, nil
}

// parseTaskConfig reads command (string) and args (list).
func parseTaskConfig(c map[string]any) (string, []string, error) {
	command, _ := c["command"].(string)
	if command == "" {
		return "", nil, fmt.Errorf("command is required and must be a string")
	}
	var args []string
	switch v := c["args"].(type) {
	case nil:
	case []any:
		for _, a := range v {
			args = append(args, fmt.Sprint(a))
		}
	case []string:
		args = v
	default:
		return "", nil, fmt.Errorf("args must be a list, got %T", v)
	}
	return command, args, nil
}

func (d *Driver) task(id string) (*task, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t := d.tasks[id]
	if t == nil {
		return nil, fmt.Errorf("task %q: %w", id, base.ErrTaskNotFound)
	}
	return t, nil
}

// WaitTask: see base.Driver.
func (d *Driver) WaitTask(ctx context.Context, taskID string) (<-chan *base.ExitResult, error) {
	t, err := d.task(taskID)
	if err != nil {
		return nil, err
	}
	return t.exit.Wait(ctx), nil
}

// StopTask: see base.Driver.
func (d *Driver) StopTask(taskID string, timeout time.Duration, signal string) error {
	t, err := d.task(taskID)
	if err != nil {
		return err
	}
	sig, err := base.ParseSignal(signal, syscall.SIGTERM)
	if err != nil {
		return err
	}
	t.stop(timeout, sig)
	return nil
}

// DestroyTask: see base.Driver. Kills what is left of the process group,
// stops the log pumps and removes the cgroups and FIFOs.
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
		t.killGroup()
		t.stopOnce.Do(func() { close(t.stopped) })
		<-t.exit.Done()
	}
	t.killGroup() // leftover background children
	t.closePumps()
	removeCgroups(t.state.Cgroups)
	for _, f := range []string{t.state.StdoutFIFO, t.state.StderrFIFO} {
		if f != "" {
			_ = os.Remove(f)
		}
	}
	if rec, err := handlefile.Read(d.opts.Name, t.cfg); err == nil && rec.TaskID == taskID {
		handlefile.Remove(d.opts.Name, t.cfg)
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
	st := &base.TaskStatus{
		ID: taskID, Name: t.cfg.Name, State: base.TaskStateRunning, StartedAt: t.state.StartedAt,
		DriverAttributes: map[string]string{"pid": fmt.Sprint(t.state.Pid)},
	}
	if res, at := t.exit.Result(); res != nil {
		st.State, st.ExitResult, st.CompletedAt = base.TaskStateExited, res, at
	}
	return st, nil
}

// SignalTask: see base.Driver.
func (d *Driver) SignalTask(taskID string, signal string) error {
	t, err := d.task(taskID)
	if err != nil {
		return err
	}
	return SignalPid(taskID, t.state.Pid, signal)
}

// RecoverTask re-attaches to a task by pid and start time. A task whose
// process is gone is still registered, as exited with ErrExitCodeUnknown,
// so WaitTask tells the caller at once.
//
// Logs: the task writes into FIFOs opened read-write on its side, so it
// never got SIGPIPE when the previous plugin died; output written while no
// plugin was reading is kept by the kernel up to the FIFO buffer (64 KiB),
// after which the task blocks on write until this call attaches new pumps.
// If the FIFO files were removed, logs of the recovered task are no longer
// captured (a log shim surviving plugin restarts is a later issue).
func (d *Driver) RecoverTask(h *base.TaskHandle) error {
	if h == nil || h.Config == nil {
		return fmt.Errorf("%s: recover: handle without config", d.opts.Name)
	}
	var st driverState
	if err := json.Unmarshal(h.DriverState, &st); err != nil || st.Pid <= 0 {
		return fmt.Errorf("%s: recover task %q: bad driver state: %v", d.opts.Name, h.Config.ID, err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.tasks[h.Config.ID]; ok {
		return nil
	}
	t := newTask(h.Config)
	t.state = st
	if alive(st.Pid, st.StartTicks) {
		for _, l := range [][2]string{{h.Config.StdoutPath, st.StdoutFIFO}, {h.Config.StderrPath, st.StderrFIFO}} {
			if l[1] == "" {
				continue
			}
			if err := t.attachLog(l[0], l[1]); err != nil {
				d.logger.Warn("recovered task's log not captured", "task", h.Config.ID, "error", err)
			}
		}
	}
	go t.waitRecovered()
	d.tasks[h.Config.ID] = t
	return nil
}
