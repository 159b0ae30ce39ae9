package docker

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/docker/docker/api/types/container"
)

// nomadDefaultCaps are the capabilities a container has by default, and
// the default allow_caps: Docker's default set without NET_RAW, as Nomad.
var nomadDefaultCaps = []string{"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
	"NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"}

// defaultRuntimes is the default allow_runtimes, as Nomad.
var defaultRuntimes = []string{"runc", "nvidia"}

// securityConfig is what a task asks of the engine beyond an ordinary
// container; each is checked against the plugin's allowlists (applySecurity).
type securityConfig struct {
	Privileged       bool
	CapAdd, CapDrop  []string
	Devices          []device
	SecurityOpt      []string
	PidMode, IpcMode string
	UTSMode, Userns  string
	Sysctl           map[string]string
	Runtime          string
}

// device is one devices { host_path container_path cgroup_permissions }.
type device struct{ HostPath, ContainerPath, CgroupPermissions string }

// parse decodes key into s when it is one of its options; ok is false for
// other keys.
func (s *securityConfig) parse(key string, v any) (ok bool, err error) {
	switch key {
	case "privileged":
		s.Privileged, err = boolean(v)
	case "cap_add":
		s.CapAdd, err = strList(v)
	case "cap_drop":
		s.CapDrop, err = strList(v)
	case "devices":
		s.Devices, err = parseDevices(v)
	case "security_opt":
		s.SecurityOpt, err = strList(v)
	case "pid_mode":
		s.PidMode, err = str(v)
	case "ipc_mode":
		s.IpcMode, err = str(v)
	case "uts_mode":
		s.UTSMode, err = str(v)
	case "userns_mode":
		s.Userns, err = str(v)
	case "sysctl":
		s.Sysctl, err = strMaps(v)
	case "runtime":
		s.Runtime, err = str(v)
	default:
		return false, nil
	}
	return true, err
}

func parseDevices(v any) ([]device, error) {
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	out := make([]device, 0, len(list))
	for i, e := range list {
		m, err := strMap(e)
		if err != nil {
			return nil, fmt.Errorf("#%d: %w", i, err)
		}
		d := device{CgroupPermissions: "rwm"}
		for k, s := range m {
			switch k {
			case "host_path":
				d.HostPath = s
			case "container_path":
				d.ContainerPath = s
			case "cgroup_permissions":
				d.CgroupPermissions = s
			default:
				return nil, fmt.Errorf("#%d: unknown key %q", i, k)
			}
		}
		if d.HostPath == "" {
			return nil, fmt.Errorf("#%d: host_path is required", i)
		}
		if d.ContainerPath == "" {
			d.ContainerPath = d.HostPath
		}
		out = append(out, d)
	}
	return out, nil
}

// applySecurity checks the task's options against the plugin config and
// sets them on hc; every refusal names the task option and the plugin
// option that would allow it, and wraps ErrNotAllowed:
//   - privileged needs allow_privileged = true;
//   - each cap_add must be in allow_caps ("ALL" only when allow_caps has
//     it); the container gets the default caps allowed by allow_caps, plus
//     cap_add, minus cap_drop (CapDrop ALL, CapAdd the result);
//   - runtime must be in allow_runtimes;
//   - network_mode, pid_mode, ipc_mode, uts_mode, userns_mode "host" or
//     "container:<name>" need allow_host_namespaces = true;
//   - devices are host paths: they need volumes { enabled = true };
//   - security_opt other than no-new-privileges needs allow_privileged;
//   - sysctl keys must be namespaced (net.*, kernel.shm*, kernel.msg*,
//     kernel.sem, fs.mqueue.*), so they never change the host's.
func applySecurity(hc *container.HostConfig, tc *taskConfig, pc pluginConfig) error {
	s := &tc.Sec
	var errs []error
	refuse := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf(format+": %w", append(a, ErrNotAllowed)...))
	}
	if s.Privileged && !pc.AllowPrivileged {
		refuse("privileged: needs allow_privileged = true in the docker plugin config")
	}
	hc.Privileged = s.Privileged
	if err := applyCaps(hc, s, pc.AllowCaps); err != nil {
		errs = append(errs, err)
	}
	if s.Runtime != "" && !slices.Contains(pc.AllowRuntimes, s.Runtime) {
		refuse("runtime %q: not in the docker plugin config's allow_runtimes %v", s.Runtime, pc.AllowRuntimes)
	}
	hc.Runtime = s.Runtime
	for _, m := range []struct{ key, val string }{{"network_mode", tc.NetworkMode}, {"pid_mode", s.PidMode},
		{"ipc_mode", s.IpcMode}, {"uts_mode", s.UTSMode}, {"userns_mode", s.Userns}} {
		if sharesNamespace(m.val) && !pc.AllowHostNamespaces {
			refuse("%s %q: sharing the host's or another container's namespace needs allow_host_namespaces = true in the docker plugin config", m.key, m.val)
		}
	}
	hc.PidMode, hc.IpcMode = container.PidMode(s.PidMode), container.IpcMode(s.IpcMode)
	hc.UTSMode, hc.UsernsMode = container.UTSMode(s.UTSMode), container.UsernsMode(s.Userns)
	for i, d := range s.Devices {
		if !pc.VolumesEnabled {
			refuse("devices #%d: host_path %q: devices are host paths and need volumes { enabled = true } in the docker plugin config", i, d.HostPath)
		}
		hc.Devices = append(hc.Devices, container.DeviceMapping{PathOnHost: d.HostPath, PathInContainer: d.ContainerPath, CgroupPermissions: d.CgroupPermissions})
	}
	for _, o := range s.SecurityOpt {
		if !isNoNewPrivileges(o) && !pc.AllowPrivileged {
			refuse("security_opt %q: only no-new-privileges is allowed without allow_privileged = true in the docker plugin config", o)
		}
	}
	hc.SecurityOpt = s.SecurityOpt
	for _, k := range sortedKeys(s.Sysctl) {
		if !namespacedSysctl(k) {
			refuse("sysctl %q: not a namespaced sysctl (net.*, kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*)", k)
		}
	}
	hc.Sysctls = s.Sysctl
	return errors.Join(errs...)
}

// applyCaps sets the container's capabilities (see applySecurity).
func applyCaps(hc *container.HostConfig, s *securityConfig, allow []string) error {
	norm := func(l []string) []string {
		out := make([]string, 0, len(l))
		for _, c := range l {
			out = append(out, strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(c)), "CAP_"))
		}
		return out
	}
	allow, add, drop := norm(allow), norm(s.CapAdd), norm(s.CapDrop)
	allowAll := slices.Contains(allow, "ALL")
	var bad []string
	for _, c := range add {
		if !allowAll && !slices.Contains(allow, c) {
			bad = append(bad, c)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("cap_add %v: not in the docker plugin config's allow_caps %v: %w", bad, allow, ErrNotAllowed)
	}
	if s.Privileged {
		return nil // all capabilities; cap_add and cap_drop do not apply
	}
	if slices.Contains(add, "ALL") {
		hc.CapAdd, hc.CapDrop = []string{"ALL"}, drop
		return nil
	}
	caps := map[string]bool{}
	for _, c := range nomadDefaultCaps {
		if allowAll || slices.Contains(allow, c) {
			caps[c] = true
		}
	}
	for _, c := range add {
		caps[c] = true
	}
	for _, c := range drop {
		if c == "ALL" {
			clear(caps)
			for _, a := range add {
				caps[a] = true
			}
			break
		}
		delete(caps, c)
	}
	hc.CapDrop = []string{"ALL"}
	hc.CapAdd = sortedKeys(caps)
	return nil
}

// sharesNamespace reports whether a *_mode value joins the host's or
// another container's namespace.
func sharesNamespace(mode string) bool {
	return mode == "host" || strings.HasPrefix(mode, "container:")
}

func isNoNewPrivileges(o string) bool {
	switch o {
	case "no-new-privileges", "no-new-privileges:true", "no-new-privileges=true":
		return true
	}
	return false
}

// namespacedSysctl reports whether a sysctl belongs to a namespace the
// container owns (network or IPC), as the engine's own list.
func namespacedSysctl(k string) bool {
	for _, p := range []string{"net.", "kernel.shm", "kernel.msg", "fs.mqueue."} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return k == "kernel.sem"
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
