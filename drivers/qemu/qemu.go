// Package qemu is the qemu driver: each task is a virtual machine run by
// qemu-system-x86_64 directly (no libvirt), with the serial console in the
// task's stdout log and QMP (drivers/qemu/qmp) on a unix socket for a
// graceful ACPI shutdown. VMs are recovered after a plugin restart by pid,
// process start time and QMP socket path, like raw_exec tasks.
package qemu

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/internal/execdriver"
	"github.com/nomadish/nomadish/drivers/internal/handlefile"
)

// Name is the driver's name in job files.
const Name = "qemu"

// Binary is the emulator the driver runs, looked up in PATH.
const Binary = "qemu-system-x86_64"

// kvmDevice exists when hardware virtualization is usable.
const kvmDevice = "/dev/kvm"

// startTimeout bounds how long StartTask waits for qemu's QMP socket.
const startTimeout = 10 * time.Second

// ErrPathNotAllowed is wrapped by StartTask when the task names an image,
// kernel, initrd or a host path in its args outside its allocation
// directory and the plugin's image_paths.
var ErrPathNotAllowed = errors.New("qemu: path not allowed")

// ErrArgNotAllowed is wrapped by StartTask when the task has args and the
// plugin has no args_allowlist, or its args use a flag missing from it.
var ErrArgNotAllowed = errors.New("qemu: arg not allowed")

// Installed reports whether the qemu binary is in PATH (the client enables
// the driver then).
func Installed() bool {
	_, err := exec.LookPath(Binary)
	return err == nil
}

// Driver implements base.Driver for qemu.
type Driver struct {
	logger hclog.Logger

	tasks *base.Table[task]

	mu            sync.Mutex // guards imagePaths, argsAllowlist
	imagePaths    []string
	argsAllowlist []string // nil: no args allowed (args.go)
}

var _ base.Driver = (*Driver)(nil)

// New returns a driver with no tasks and no image_paths.
func New(logger hclog.Logger) *Driver {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	return &Driver{logger: logger.Named(Name), tasks: base.NewTable(func(t *task) *base.Exit { return t.exit })}
}

// SetConfig accepts {"image_paths": [dir, ...]}: host directories from
// which tasks may read images, kernels and initrds besides their alloc dir;
// and {"args_allowlist": [flag, ...]}: the only qemu flags a task's args
// may use; without it a task may use no args at all (checkArgs).
func (d *Driver) SetConfig(cfg map[string]any) error {
	var paths, allow []string
	for k, v := range cfg {
		l, err := stringList(k, v)
		switch {
		case k != "image_paths" && k != "args_allowlist":
			return fmt.Errorf("qemu plugin config: unknown key %q (known: image_paths, args_allowlist)", k)
		case err != nil:
			return fmt.Errorf("qemu plugin config: %w", err)
		case k == "args_allowlist":
			allow = l
			continue
		}
		for _, p := range l {
			if !filepath.IsAbs(p) {
				return fmt.Errorf("qemu plugin config: image_paths: %q is not an absolute path", p)
			}
		}
		paths = l
	}
	d.mu.Lock()
	d.imagePaths, d.argsAllowlist = paths, allow
	d.mu.Unlock()
	return nil
}

var versionRe = regexp.MustCompile(`version (\d+\.\d+(?:\.\d+)?)`)

// Fingerprint: undetected without the qemu binary; else healthy with
// driver.qemu = "1", driver.qemu.version and driver.qemu.kvm.
func (d *Driver) Fingerprint(ctx context.Context) (*base.Fingerprint, error) {
	path, err := exec.LookPath(Binary)
	if err != nil {
		return &base.Fingerprint{Health: base.HealthUndetected, HealthDescription: Binary + " not found"}, nil
	}
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return &base.Fingerprint{Health: base.HealthUnhealthy,
			HealthDescription: fmt.Sprintf("running %s --version: %v", path, err)}, nil
	}
	m := versionRe.FindSubmatch(out)
	if m == nil {
		return &base.Fingerprint{Health: base.HealthUnhealthy,
			HealthDescription: fmt.Sprintf("cannot parse %s --version: %q", path, out)}, nil
	}
	return &base.Fingerprint{Health: base.HealthHealthy, HealthDescription: "healthy", Attributes: map[string]string{
		"driver.qemu": "1", "driver.qemu.version": string(m[1]), "driver.qemu.kvm": fmt.Sprint(kvmAvailable()),
	}}, nil
}

func kvmAvailable() bool {
	_, err := os.Stat(kvmDevice)
	return err == nil
}

// Capabilities: signals reach qemu; the guest is its own filesystem.
func (d *Driver) Capabilities() (*base.Capabilities, error) {
	return &base.Capabilities{SendSignals: true, FSIsolation: base.FSIsolationImage}, nil
}

// StartTask checks the config and the files it names, starts qemu and
// waits until its QMP socket is up (an early qemu error comes back here,
// with qemu's message from the stderr log).
func (d *Driver) StartTask(cfg *base.TaskConfig) (*base.TaskHandle, error) {
	tc, err := parseTaskConfig(cfg.Config, kvmAvailable())
	if err != nil {
		return nil, fmt.Errorf("task %q config: %w", cfg.Name, err)
	}
	d.mu.Lock()
	imagePaths, allow := d.imagePaths, d.argsAllowlist
	d.mu.Unlock()
	if err := checkArgs(tc.Args, allow, cfg, imagePaths); err != nil {
		return nil, fmt.Errorf("task %q config: %w", cfg.Name, err)
	}
	f, err := resolveFiles(tc, cfg, imagePaths)
	if err != nil {
		return nil, fmt.Errorf("task %q: %w", cfg.Name, err)
	}
	ports, err := hostPorts(tc.PortMap, cfg.Env, cfg.Network != nil)
	if err != nil {
		return nil, fmt.Errorf("task %q config: %w", cfg.Name, err)
	}
	binary, err := exec.LookPath(Binary)
	if err != nil {
		return nil, fmt.Errorf("qemu: %w", err)
	}
	st := driverState{QMPSocket: qmpSocketPath(cfg), GracefulShutdown: tc.GracefulShutdown}
	t, err := d.tasks.Start(cfg.ID, func() (*task, error) {
		t, err := d.boot(cfg, binary, commandLine(tc, cfg, f, st.QMPSocket, ports), st)
		if err != nil {
			return nil, fmt.Errorf("task %q: %w", cfg.Name, err)
		}
		return t, nil
	})
	if err != nil {
		return nil, err
	}
	d.logger.Debug("vm started", "task", cfg.ID, "pid", t.state.Pid, "qmp", t.state.QMPSocket)
	state := t.encodeState()
	if err := handlefile.Write(Name, cfg, state); err != nil { // for DiscoverTask
		d.logger.Warn("VM cannot be re-discovered if the client loses its state", "task", cfg.ID, "error", err)
	}
	return &base.TaskHandle{Version: base.TaskHandleVersion, Config: cfg, State: base.TaskStateRunning, DriverState: state}, nil
}

// boot starts qemu, waits for its QMP socket and pins its vCPUs; a VM that
// fails any step is killed and its FIFOs and socket removed.
func (d *Driver) boot(cfg *base.TaskConfig, binary string, args []string, st driverState) (*task, error) {
	t, err := startVM(cfg, binary, args, st)
	if err != nil {
		return nil, err
	}
	if err = waitSocket(t, startTimeout); err == nil {
		err = d.pin(t)
	}
	if err != nil {
		t.killGroup()
		<-t.exit.Done()
		t.release()
		return nil, err
	}
	return t, nil
}

// pin pins the VM's vCPU threads to the task's reserved cores. A task that
// reserved cores and cannot have them is not started (the error says why).
func (d *Driver) pin(t *task) error {
	ctx, cancel := context.WithTimeout(context.Background(), qmpTimeout)
	defer cancel()
	pins, err := t.pinVCPUs(ctx)
	if err != nil {
		return err
	}
	if len(pins) > 0 {
		d.logger.Debug("vcpus pinned", "task", t.cfg.ID, "pins", pins)
	}
	return nil
}

// WaitTask: see base.Driver.
func (d *Driver) WaitTask(ctx context.Context, taskID string) (<-chan *base.ExitResult, error) {
	return d.tasks.Wait(ctx, taskID)
}

// StopTask: with graceful_shutdown, QMP system_powerdown, else signal
// (default SIGTERM) to qemu; SIGKILL after timeout. See task.stop.
func (d *Driver) StopTask(taskID string, timeout time.Duration, signal string) error {
	return d.tasks.Stop(taskID, signal, func(t *task, sig syscall.Signal) error {
		t.stop(timeout, sig, d.logger)
		return nil
	})
}

// DestroyTask: see base.Driver. Kills a running VM when force, stops the
// log pumps, removes the FIFOs and the QMP socket.
func (d *Driver) DestroyTask(taskID string, force bool) error {
	return d.tasks.Destroy(taskID, force, func(t *task) error {
		t.killGroup()
		t.stopOnce.Do(func() { close(t.stopped) })
		<-t.exit.Done()
		return nil
	}, func(t *task) error {
		t.release()
		if rec, err := handlefile.Read(Name, t.cfg); err == nil && rec.TaskID == taskID {
			handlefile.Remove(Name, t.cfg)
		}
		return nil
	})
}

// InspectTask: see base.Driver. DriverAttributes hold the pid, the QMP
// socket and, after a graceful stop, what system_powerdown did.
func (d *Driver) InspectTask(taskID string) (*base.TaskStatus, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	attrs := map[string]string{"pid": fmt.Sprint(t.state.Pid), "qmp_socket": t.state.QMPSocket}
	if outcome, called := t.shutdownInfo(); called {
		attrs["graceful_shutdown"] = outcome
	}
	return t.exit.Status(&base.TaskStatus{ID: taskID, Name: t.cfg.Name, State: base.TaskStateRunning,
		StartedAt: t.state.StartedAt, DriverAttributes: attrs}), nil
}

// SignalTask sends the signal to the qemu process.
func (d *Driver) SignalTask(taskID string, signal string) error {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return err
	}
	return execdriver.SignalPid(taskID, t.state.Pid, signal)
}

// RecoverTask re-attaches to a VM by pid and start time, and to its log
// FIFOs; its QMP socket path comes from the handle. A VM that is gone is
// registered as exited with ErrExitCodeUnknown.
func (d *Driver) RecoverTask(h *base.TaskHandle) error {
	if h == nil || h.Config == nil {
		return errors.New("qemu: recover: handle without config")
	}
	var st driverState
	if err := json.Unmarshal(h.DriverState, &st); err != nil || st.Pid <= 0 {
		return fmt.Errorf("qemu: recover task %q: bad driver state: %v", h.Config.ID, err)
	}
	d.tasks.AddNew(h.Config.ID, func() *task {
		t := newTask(h.Config)
		t.state = st
		if execdriver.Alive(st.Pid, st.StartTicks) {
			for _, l := range [][2]string{{h.Config.StdoutPath, st.StdoutFIFO}, {h.Config.StderrPath, st.StderrFIFO}} {
				if l[1] == "" {
					continue
				}
				if err := t.attachLog(l[0], l[1]); err != nil {
					d.logger.Warn("recovered VM's log not captured", "task", h.Config.ID, "error", err)
				}
			}
		}
		go t.waitRecovered()
		return t
	})
	return nil
}

// Default is qemu's enablement rule: on when it has a plugin block or the
// qemu binary is in PATH (Installed), with its plugin config.
func Default(_ base.Host, cfg map[string]any, ok bool) (map[string]any, bool) {
	return cfg, ok || Installed()
}
