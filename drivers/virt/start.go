package virt

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/digitalocean/go-libvirt"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/internal/hostpath"
	"github.com/nomadish/nomadish/drivers/virt/cloudinit"
	"github.com/nomadish/nomadish/drivers/virt/image"
)

// StartTask checks the config, prepares the disk and the cloud-init seed in
// the task's work dir, defines the domain and starts it. A failure at any
// step removes what the earlier ones made.
func (d *Driver) StartTask(cfg *base.TaskConfig) (*base.TaskHandle, error) {
	tc, err := parseTaskConfig(cfg.Config, kvmAvailable())
	if err != nil {
		return nil, fmt.Errorf("task %q config: %w", cfg.Name, err)
	}
	t, err := d.tasks.Start(cfg.ID, func() (*task, error) {
		t, err := d.create(cfg, tc)
		if err != nil {
			return nil, fmt.Errorf("task %q: %w", cfg.Name, err)
		}
		return t, nil
	})
	if err != nil {
		return nil, err
	}
	go d.watch(t)
	state, err := json.Marshal(t.state)
	if err != nil {
		return nil, err
	}
	d.logger.Debug("domain started", "task", cfg.ID, "domain", t.state.Domain)
	return &base.TaskHandle{Version: base.TaskHandleVersion, Config: cfg, State: base.TaskStateRunning, DriverState: state}, nil
}

// create does StartTask's work under the table's reservation of cfg.ID.
func (d *Driver) create(cfg *base.TaskConfig, tc *taskConfig) (t *task, err error) {
	d.mu.Lock()
	imagePaths := d.imagePaths
	d.mu.Unlock()
	spec := domainSpec{Name: DomainName(cfg.AllocID, cfg.Name), Type: "qemu", Arch: tc.Arch, Machine: tc.Machine,
		MemoryMB: cfg.Resources.MemoryMB, MemoryMaxMB: cfg.Resources.MemoryMaxMB, CPUShares: cfg.Resources.CPUShares,
		Cores: cfg.Resources.Cores, Cmdline: tc.Cmdline}
	if tc.Accelerator == "kvm" {
		spec.Type = "kvm"
	}
	if spec.MemoryMB <= 0 {
		return nil, fmt.Errorf("resources.memory must be set for a VM")
	}
	if spec.CoreNodes, err = coreNodes(d.sysCPU, spec.Cores); err != nil {
		return nil, err
	}
	for key, p := range map[string]*string{"kernel": &tc.Kernel, "initrd": &tc.Initrd} {
		if *p == "" {
			continue
		}
		if *p, err = resolveFile(key, *p, cfg, imagePaths); err != nil {
			return nil, err
		}
	}
	spec.Kernel, spec.Initrd = tc.Kernel, tc.Initrd
	if err := checkBridgePorts(tc.Bridges, cfg.Env); err != nil {
		return nil, err
	}
	for _, b := range tc.Bridges {
		spec.Bridges = append(spec.Bridges, b.Name)
	}
	if cfg.Network != nil && len(tc.PortMap) > 0 {
		// qemu is libvirtd's child, outside the group's namespace: the
		// namespace's port mappings would not reach it.
		return nil, fmt.Errorf("port_map: a virt task's user-mode ports are forwarded on the host; " +
			"the group's network mode gives it a namespace libvirt's VMs do not join (use host mode or network_interface.bridge)")
	}
	if len(tc.Bridges) == 0 {
		if spec.Forwards, err = forwards(tc.PortMap, cfg.Env); err != nil {
			return nil, err
		}
	}
	st := driverState{Domain: spec.Name, WorkDir: workDir(cfg), GracefulTimeout: tc.GracefulTimeout}
	st.Console = filepath.Join(st.WorkDir, "console.log")
	if err := os.MkdirAll(st.WorkDir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the VM's work dir: %w", err)
	}
	defer func() {
		if err != nil {
			_ = removeFiles(st)
		}
	}()
	if err := d.prepareMedia(cfg, tc, imagePaths, &st, &spec); err != nil {
		return nil, err
	}
	spec.Console = st.Console
	spec.Meta = meta{AllocID: cfg.AllocID, TaskName: cfg.Name, TaskID: cfg.ID, AllocDir: cfg.AllocDir, WorkDir: st.WorkDir,
		Disk: st.Disk, SeedISO: st.SeedISO}
	xmlDesc, err := domainXML(spec)
	if err != nil {
		return nil, err
	}
	dom, err := d.define(spec.Name, string(xmlDesc))
	if err != nil {
		return nil, err
	}
	st.UUID, st.StartedAt = hex.EncodeToString(dom.UUID[:]), time.Now()
	t = newTask(cfg, st, dom)
	files, maxBytes := cfg.LogLimits()
	if t.console, err = startConsole(st.Console, cfg.StdoutPath, files, maxBytes); err != nil {
		d.undefine(dom)
		return nil, fmt.Errorf("opening the stdout log: %w", err)
	}
	return t, nil
}

// prepareMedia writes the primary disk (image.Prepare) and the cloud-init
// seed (cloudinit.WriteISO) into st.WorkDir.
func (d *Driver) prepareMedia(cfg *base.TaskConfig, tc *taskConfig, imagePaths []string, st *driverState, spec *domainSpec) error {
	if tc.Image != "" {
		disk, err := image.Prepare(image.Request{Image: tc.Image, TaskDir: cfg.TaskDir, AllowedPaths: imagePaths,
			Dest: filepath.Join(st.WorkDir, "disk"), ThinCopy: tc.ThinCopy, SizeMB: tc.DiskSizeMB})
		if err != nil {
			return fmt.Errorf("image: %w", err)
		}
		st.Disk, spec.Disk, spec.DiskFormat = disk.Path, disk.Path, disk.Format
	}
	if ci := tc.CloudInit; ci != nil {
		host := tc.Hostname
		if host == "" {
			host = cfg.Name
		}
		st.SeedISO = filepath.Join(st.WorkDir, "seed.iso")
		err := cloudinit.WriteISO(st.SeedISO, cloudinit.Config{InstanceID: spec.Name, Hostname: host,
			UserDataRaw: ci.UserData, MetaDataRaw: ci.MetaData, NetworkConfig: ci.NetworkConfig,
			AuthorizedSSHKey: ci.SSHKey, Password: ci.Password, Cmds: ci.Cmds})
		if err != nil {
			return fmt.Errorf("cloud-init seed: %w", err)
		}
		spec.SeedISO = st.SeedISO
	}
	return nil
}

// define defines the domain and starts it. A shut-off domain left with the
// same name (an earlier run of the task, not yet destroyed) is undefined
// first; a running one is an error.
func (d *Driver) define(name, xmlDesc string) (libvirt.Domain, error) {
	l, err := d.conn.get()
	if err != nil {
		return libvirt.Domain{}, err
	}
	if old, err := l.DomainLookupByName(name); err == nil {
		state, _, err := l.DomainGetState(old, 0)
		if err == nil && libvirt.DomainState(state) != libvirt.DomainShutoff {
			return libvirt.Domain{}, fmt.Errorf("domain %s is already running: %w", name, base.ErrTaskExists)
		}
		d.undefine(old)
	}
	dom, err := l.DomainDefineXML(xmlDesc)
	if err != nil {
		return libvirt.Domain{}, fmt.Errorf("defining domain %s: %w", name, err)
	}
	if err := l.DomainCreate(dom); err != nil {
		d.undefine(dom)
		return libvirt.Domain{}, fmt.Errorf("starting domain %s: %w", name, err)
	}
	return dom, nil
}

// undefine destroys and undefines dom, logging failures (a clean-up path).
func (d *Driver) undefine(dom libvirt.Domain) {
	l, err := d.conn.get()
	if err != nil {
		return
	}
	if err := l.DomainDestroyFlags(dom, libvirt.DomainDestroyDefault); err != nil && !isNoDomain(err) {
		d.logger.Debug("destroying domain", "domain", dom.Name, "error", err)
	}
	if err := l.DomainUndefineFlags(dom, 0); err != nil && !isNoDomain(err) {
		d.logger.Warn("undefining domain", "domain", dom.Name, "error", err)
	}
}

// resolveFile finds a task's kernel or initrd: relative paths are in the
// task dir; the file (symlinks resolved) must lie in the alloc dir or under
// one of the plugin's image_paths. Errors name the key.
func resolveFile(key, p string, cfg *base.TaskConfig, imagePaths []string) (string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(cfg.TaskDir, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("%s %q: %w", key, p, err)
	}
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s %q is not a regular file", key, p)
	}
	for _, dir := range append([]string{cfg.AllocDir, cfg.TaskDir}, imagePaths...) {
		if dir == "" {
			continue
		}
		if d, err := filepath.EvalSymlinks(dir); err == nil && hostpath.Within(real, d) {
			return real, nil
		}
	}
	return "", fmt.Errorf("%s %q is outside the allocation directory and the virt plugin's image_paths %v", key, p, imagePaths)
}
