// Package virt is the virt driver: each task is a libvirt domain (a qemu
// VM run by libvirtd), reached over libvirtd's unix socket with go-libvirt.
// The domain is named after the task's alloc and task name and carries
// them in its <metadata>, so a restarted plugin re-attaches to it by name
// and a reconciler removes the domains of allocations that are gone. The
// primary disk comes from drivers/virt/image, the cloud-init seed from
// drivers/virt/cloudinit; reserved cores become pinned vCPUs with their
// NUMA memory bound (domain.go).
package virt

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/drivers/base"
)

// Name is the driver's name in job files.
const Name = "virt"

// kvmDevice exists when hardware virtualization is usable.
const kvmDevice = "/dev/kvm"

// reconcilePeriod is how often the reconciler looks for dangling domains.
const reconcilePeriod = time.Minute

// Driver implements base.Driver on libvirt.
type Driver struct {
	logger hclog.Logger
	tasks  *base.Table[task]
	conn   conn

	// sysCPU is where coreNodes reads the host topology (tests point it
	// elsewhere). Set before use.
	sysCPU string

	mu         sync.Mutex // guards imagePaths, stopLoop
	imagePaths []string
	stopLoop   context.CancelFunc // the reconciler's; nil before SetConfig
}

var _ base.Driver = (*Driver)(nil)

// New returns a driver for qemu:///system with no tasks and no image_paths.
func New(logger hclog.Logger) *Driver {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	return &Driver{logger: logger.Named(Name), sysCPU: sysCPU,
		tasks: base.NewTable(func(t *task) *base.Exit { return t.exit })}
}

// Installed reports whether libvirtd's default socket exists (the client
// enables the driver then).
func Installed() bool {
	_, err := os.Stat(DefaultSocket)
	return err == nil
}

// Default is virt's enablement rule: on when it has a plugin block or
// libvirtd's socket exists (Installed), with its plugin config.
func Default(_ base.Host, cfg map[string]any, ok bool) (map[string]any, bool) {
	return cfg, ok || Installed()
}

// SetConfig accepts {"uri": "qemu:///system[?socket=/path]"} and
// {"image_paths": [dir, ...]}, the host directories images and kernels may
// come from besides the task's alloc dir. It (re)starts the reconciler.
func (d *Driver) SetConfig(cfg map[string]any) error {
	ep := endpoint{URI: DefaultURI, Socket: DefaultSocket}
	var paths []string
	for k, v := range cfg {
		switch k {
		case "uri":
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("virt plugin config: uri must be a string, got %T", v)
			}
			var err error
			if ep, err = parseURI(s); err != nil {
				return fmt.Errorf("virt plugin config: %w", err)
			}
		case "image_paths":
			l, ok := v.([]any)
			if sl, isStrs := v.([]string); isStrs {
				l, ok = make([]any, len(sl)), true
				for i, s := range sl {
					l[i] = s
				}
			}
			if !ok {
				return fmt.Errorf("virt plugin config: image_paths must be a list of strings, got %T", v)
			}
			for i, e := range l {
				p, isStr := e.(string)
				if !isStr || !filepath.IsAbs(p) {
					return fmt.Errorf("virt plugin config: image_paths[%d]: %v is not an absolute path", i, e)
				}
				paths = append(paths, p)
			}
		default:
			return fmt.Errorf("virt plugin config: unknown key %q (known: image_paths, uri)", k)
		}
	}
	d.conn.set(ep)
	ctx, cancel := context.WithCancel(context.Background())
	d.mu.Lock()
	d.imagePaths = paths
	if d.stopLoop != nil {
		d.stopLoop()
	}
	d.stopLoop = cancel
	d.mu.Unlock()
	go d.reconcileLoop(ctx, reconcilePeriod)
	return nil
}

// Fingerprint: healthy with driver.virt = "1", driver.virt.version
// (libvirt's), driver.virt.qemu_version and driver.virt.accelerator (kvm
// when /dev/kvm exists, else tcg); unhealthy, with the reason, when
// libvirtd cannot be reached or answered.
func (d *Driver) Fingerprint(ctx context.Context) (*base.Fingerprint, error) {
	l, err := d.conn.get()
	if err != nil {
		return &base.Fingerprint{Health: base.HealthUnhealthy, HealthDescription: err.Error()}, nil
	}
	lib, err := l.ConnectGetLibVersion()
	if err != nil {
		return &base.Fingerprint{Health: base.HealthUnhealthy, HealthDescription: "libvirtd: " + err.Error()}, nil
	}
	hv, err := l.ConnectGetVersion()
	if err != nil {
		return &base.Fingerprint{Health: base.HealthUnhealthy, HealthDescription: "libvirtd: hypervisor version: " + err.Error()}, nil
	}
	acc := "tcg"
	if kvmAvailable() {
		acc = "kvm"
	}
	return &base.Fingerprint{Health: base.HealthHealthy, HealthDescription: "healthy", Attributes: map[string]string{
		"driver.virt": "1", "driver.virt.version": version(lib), "driver.virt.qemu_version": version(hv),
		"driver.virt.accelerator": acc,
	}}, nil
}

// version renders libvirt's major*1e6 + minor*1e3 + micro as "M.m.u".
func version(v uint64) string {
	return fmt.Sprintf("%d.%d.%d", v/1000000, v/1000%1000, v%1000)
}

func kvmAvailable() bool {
	_, err := os.Stat(kvmDevice)
	return err == nil
}

// Capabilities: signals map to ACPI (SignalTask); exec goes through the
// guest agent (exec.go); the guest is its own filesystem.
func (d *Driver) Capabilities() (*base.Capabilities, error) {
	return &base.Capabilities{SendSignals: true, Exec: true, FSIsolation: base.FSIsolationImage, ResourceLimits: true}, nil
}

// DomainName is the libvirt name of a task's domain:
// nomadish-<alloc ID>-<task name>, the task name with every character
// outside [A-Za-z0-9_.-] replaced by '_'. The alloc ID (a UUID, fixed
// length) comes first, so the name parses back.
func DomainName(allocID, task string) string {
	return "nomadish-" + allocID + "-" + safeName(task)
}

// safeName replaces every character outside [A-Za-z0-9_.-] with '_'.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '.', r == '-':
			return r
		}
		return '_'
	}, s)
}
