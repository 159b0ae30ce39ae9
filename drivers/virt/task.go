package virt

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/digitalocean/go-libvirt"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/virt/image"
)

// watchPoll is how often a task's watcher asks libvirtd for its domain's
// state.
const watchPoll = 250 * time.Millisecond

// destroyWait bounds how long a stop waits for a destroyed domain to be
// seen shut off.
const destroyWait = 30 * time.Second

// driverState is the TaskHandle's DriverState (JSON).
type driverState struct {
	Domain          string        // libvirt name
	UUID            string        // hex, binds calls to this very domain
	WorkDir         string        // holds Disk, SeedISO and Console
	Disk            string        // "" when the task boots a kernel only
	SeedISO         string        // "" without cloud-init
	Console         string        // serial console file, copied to stdout
	GracefulTimeout time.Duration // 0: StopTask's timeout
	StartedAt       time.Time
}

// task is one domain the driver tracks.
type task struct {
	cfg     *base.TaskConfig
	state   driverState
	dom     libvirt.Domain
	exit    *base.Exit
	console *consoleCopier

	releaseOnce sync.Once
	released    chan struct{} // closed by DestroyTask: the watcher ends
}

func newTask(cfg *base.TaskConfig, st driverState, dom libvirt.Domain) *task {
	return &task{cfg: cfg, state: st, dom: dom, exit: base.NewExit(), released: make(chan struct{})}
}

// workDir is where a task's disk, seed and console file live: beside the
// task dir in its alloc dir (gone with the alloc), one per task instance.
func workDir(cfg *base.TaskConfig) string {
	sum := sha256.Sum256([]byte(cfg.ID))
	return filepath.Join(filepath.Dir(filepath.Clean(cfg.TaskDir)), ".nomadish-virt-"+safeName(cfg.Name)+"-"+hex.EncodeToString(sum[:4]))
}

// watch polls the domain's state until it is shut off, gone or the task is
// released; then it copies the rest of the console and records the exit.
// One goroutine per task, started by StartTask or RecoverTask.
func (d *Driver) watch(t *task) {
	tick := time.NewTicker(watchPoll)
	defer tick.Stop()
	for {
		if res := d.poll(t); res != nil {
			t.console.stop()
			t.exit.Set(res)
			return
		}
		select {
		case <-t.released:
			return
		case <-tick.C:
		}
	}
}

// poll returns the domain's exit once it has one; nil while it runs or
// libvirtd cannot be asked (a daemon restart does not end a task).
func (d *Driver) poll(t *task) *base.ExitResult {
	l, err := d.conn.get()
	if err != nil {
		return nil
	}
	state, reason, err := l.DomainGetState(t.dom, 0)
	switch {
	case isNoDomain(err):
		return &base.ExitResult{Err: base.ErrExitCodeUnknown}
	case err != nil:
		return nil
	}
	switch libvirt.DomainState(state) {
	case libvirt.DomainShutoff:
		return shutoffResult(libvirt.DomainShutoffReason(reason))
	case libvirt.DomainCrashed:
		return &base.ExitResult{ExitCode: 1}
	}
	return nil
}

// shutoffResult maps why a domain shut off to an exit: the guest powering
// off is a clean exit, a destroy a SIGKILL, anything else a failure.
func shutoffResult(r libvirt.DomainShutoffReason) *base.ExitResult {
	switch r {
	case libvirt.DomainShutoffShutdown:
		return &base.ExitResult{}
	case libvirt.DomainShutoffDestroyed:
		return &base.ExitResult{ExitCode: 128 + int(syscall.SIGKILL), Signal: int(syscall.SIGKILL)}
	}
	return &base.ExitResult{ExitCode: 1}
}

// stop presses the ACPI power button, waits up to grace for the guest to
// power off, then destroys the domain; it returns once the exit is seen.
func (d *Driver) stop(t *task, grace time.Duration) error {
	select {
	case <-t.exit.Done():
		return nil
	default:
	}
	l, err := d.conn.get()
	if err != nil {
		return err
	}
	if err := l.DomainShutdownFlags(t.dom, libvirt.DomainShutdownAcpiPowerBtn); err != nil && !isNoDomain(err) {
		d.logger.Debug("ACPI shutdown", "task", t.cfg.ID, "error", err)
	}
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-t.exit.Done():
		return nil
	case <-timer.C:
	}
	return d.kill(t)
}

// kill destroys the domain and waits until the watcher saw it shut off.
func (d *Driver) kill(t *task) error {
	l, err := d.conn.get()
	if err != nil {
		return err
	}
	if err := l.DomainDestroyFlags(t.dom, libvirt.DomainDestroyDefault); err != nil && !isNoDomain(err) {
		select {
		case <-t.exit.Done(): // it powered off meanwhile
			return nil
		default:
			return fmt.Errorf("virt: destroying domain %s: %w", t.state.Domain, err)
		}
	}
	select {
	case <-t.exit.Done():
		return nil
	case <-time.After(destroyWait):
		return fmt.Errorf("virt: domain %s still running %v after destroy", t.state.Domain, destroyWait)
	}
}

// release ends the watcher and console copier, undefines the domain (by its
// UUID: a newer domain of the same name is not touched) and removes the
// overlay, the seed ISO and the work dir.
func (d *Driver) release(t *task) error {
	t.releaseOnce.Do(func() { close(t.released) })
	if t.console != nil {
		t.console.stop()
	}
	l, err := d.conn.get()
	if err != nil {
		return err
	}
	if err := l.DomainUndefineFlags(t.dom, 0); err != nil && !isNoDomain(err) {
		return fmt.Errorf("virt: undefining domain %s: %w", t.state.Domain, err)
	}
	return removeFiles(t.state)
}

// removeFiles deletes what StartTask wrote for a task.
func removeFiles(st driverState) error {
	var errs []error
	if st.Disk != "" {
		if err := image.Remove(st.Disk); err != nil {
			errs = append(errs, fmt.Errorf("virt: removing disk %s: %w", st.Disk, err))
		}
	}
	if st.WorkDir != "" {
		errs = append(errs, os.RemoveAll(st.WorkDir))
	}
	return errors.Join(errs...)
}
