package docker

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/go-connections/nat"

	"github.com/nomadish/nomadish/drivers/base"
)

// taskConfig is the task's `config` block, with Nomad's names.
type taskConfig struct {
	Image        string
	Command      string
	Args         []string
	Entrypoint   []string
	Labels       map[string]string
	Volumes      []string // host:container[:ro]
	Mounts       []mount.Mount
	NetworkMode  string
	Ports        []string // labels of the group's network ports
	CPUHardLimit bool
	ForcePull    bool
	AuthSoftFail bool
	Auth         *authConfig
	Sec          securityConfig // privileged, caps, namespaces... (security.go)
}

// authConfig is the auth block: credentials for the image's registry.
type authConfig struct {
	Username, Password, ServerAddress string
}

// parseTaskConfig decodes the generic config map. Errors name the key.
// A config it accepts is then checked against Schema, so the two agree.
func parseTaskConfig(m map[string]any) (*taskConfig, error) {
	c := &taskConfig{}
	var errs []error
	for k, v := range m {
		var err error
		switch k {
		case "image":
			c.Image, err = str(v)
		case "command":
			c.Command, err = str(v)
		case "args":
			c.Args, err = strList(v)
		case "entrypoint":
			c.Entrypoint, err = strList(v)
		case "labels":
			c.Labels, err = strMap(v)
		case "volumes":
			c.Volumes, err = strList(v)
		case "mount", "mounts":
			var ms []mount.Mount
			ms, err = parseMounts(v)
			c.Mounts = append(c.Mounts, ms...)
		case "network_mode":
			c.NetworkMode, err = str(v)
		case "ports":
			c.Ports, err = strList(v)
		case "cpu_hard_limit":
			c.CPUHardLimit, err = boolean(v)
		case "force_pull":
			c.ForcePull, err = boolean(v)
		case "auth_soft_fail":
			c.AuthSoftFail, err = boolean(v)
		case "auth":
			c.Auth, err = parseAuth(v)
		default:
			var known bool
			if known, err = c.Sec.parse(k, v); !known {
				err = errors.New("unknown key")
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", k, err))
		}
	}
	if c.Image == "" && len(errs) == 0 {
		errs = append(errs, errors.New("image is required"))
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	if len(errs) == 0 {
		// What this function accepted, Schema must declare (schema.go).
		if err := Schema.Validate(m); err != nil {
			errs = append(errs, err)
		}
	}
	return c, errors.Join(errs...)
}

func str(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("must be a string, got %T", v)
	}
	return s, nil
}

func boolean(v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("must be a bool, got %T", v)
	}
	return b, nil
}

func strList(v any) ([]string, error) {
	switch l := v.(type) {
	case []string:
		return l, nil
	case []any:
		out := make([]string, 0, len(l))
		for _, e := range l {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("must be a list of strings, got a %T element", e)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("must be a list of strings, got %T", v)
}

// strMap accepts a map (labels = { a = "b" }) or a block list (labels { a = "b" }).
func strMap(v any) (map[string]string, error) {
	if l, ok := v.([]any); ok && len(l) == 1 {
		v = l[0]
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("must be a map of strings, got %T", v)
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		out[k] = fmt.Sprint(e)
	}
	return out, nil
}

func parseAuth(v any) (*authConfig, error) {
	m, err := strMap(v)
	if err != nil {
		return nil, err
	}
	a := &authConfig{}
	for k, s := range m {
		switch k {
		case "username":
			a.Username = s
		case "password":
			a.Password = s
		case "server_address":
			a.ServerAddress = s
		default:
			return nil, fmt.Errorf("unknown key %q", k)
		}
	}
	return a, nil
}

// Paths of the task directories inside the container, as Nomad's.
const (
	containerAllocDir   = "/alloc"
	containerLocalDir   = "/local"
	containerSecretsDir = "/secrets"
)

// containerConfig builds what ContainerCreate needs for the task.
func containerConfig(cfg *base.TaskConfig, tc *taskConfig, pc pluginConfig) (*container.Config, *container.HostConfig, error) {
	cc := &container.Config{
		Image:  tc.Image,
		Env:    containerEnv(cfg.Env),
		User:   cfg.User,
		Labels: map[string]string{},
	}
	if tc.Command != "" {
		cc.Cmd = append([]string{tc.Command}, tc.Args...)
	} else if len(tc.Args) > 0 {
		cc.Cmd = tc.Args
	}
	if len(tc.Entrypoint) > 0 {
		cc.Entrypoint = tc.Entrypoint
	}
	for k, v := range tc.Labels {
		cc.Labels[k] = v
	}
	cc.Labels[LabelAllocID] = cfg.AllocID
	cc.Labels[LabelTaskName] = cfg.Name
	cc.Labels[LabelTaskID] = cfg.ID
	cc.Labels[LabelJobName] = cfg.JobName
	cc.Labels[LabelAllocDir] = cfg.AllocDir

	hc := &container.HostConfig{NetworkMode: container.NetworkMode(tc.NetworkMode)}
	hc.Resources = resources(cfg.Resources, tc.CPUHardLimit)
	hp := newHostPaths(cfg.AllocDir, cfg.TaskDir, pc.VolumesEnabled)
	var err error
	if hc.Binds, err = binds(cfg, tc.Volumes, hp, pc.SELinuxLabel); err != nil {
		return nil, nil, err
	}
	hc.Binds = append(hc.Binds, volumeBinds(cfg.Mounts, pc.SELinuxLabel)...) // volumes.go
	if hc.Mounts, err = resolveMounts(tc.Mounts, hp); err != nil {
		return nil, nil, err
	}
	if err := applySecurity(hc, tc, pc); err != nil {
		return nil, nil, err
	}
	exposed, bindings, err := portBindings(tc.Ports, cfg.Env)
	if err != nil {
		return nil, nil, err
	}
	cc.ExposedPorts, hc.PortBindings = exposed, bindings
	if err := applyGroupNetwork(cfg, tc, cc, hc); err != nil { // network.go
		return nil, nil, err
	}
	return cc, hc, nil
}

// containerEnv returns the env as sorted K=V, with the NOMAD_*_DIR
// variables pointing at the task directories inside the container.
func containerEnv(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		switch k {
		case "NOMAD_ALLOC_DIR":
			v = containerAllocDir
		case "NOMAD_TASK_DIR":
			v = containerLocalDir
		case "NOMAD_SECRETS_DIR":
			v = containerSecretsDir
		}
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// resources maps the task's resources as Nomad does: memory_max (when set)
// is the hard limit and memory the reservation; cpu MHz are cpu shares, and
// with cpu_hard_limit also a CFS quota of cpu/MHz-per-core of a core;
// reserved cores become CpusetCpus and their NUMA nodes CpusetMems.
func resources(r base.Resources, hardLimit bool) container.Resources {
	const mb = 1 << 20
	out := container.Resources{CPUShares: r.CPUShares, Memory: r.MemoryMB * mb}
	if r.MemoryMaxMB > r.MemoryMB {
		out.Memory, out.MemoryReservation = r.MemoryMaxMB*mb, r.MemoryMB*mb
	}
	if out.Memory > 0 {
		out.MemorySwap = out.Memory // no swap beyond the limit
	}
	// Reserved cores pin the container (and its memory to their NUMA nodes).
	out.CpusetCpus = r.CoreList()
	out.CpusetMems = base.IDList(r.NUMANodes)
	if hardLimit && r.CPUShares > 0 {
		const period = 100000
		out.CPUPeriod = period
		out.CPUQuota = max(1000, r.CPUShares*period/cpuMHzPerCore())
	}
	return out
}

// cpuMHzPerCore reads the first "cpu MHz" of /proc/cpuinfo (1000 if none).
func cpuMHzPerCore() int64 {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 1000
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == "cpu MHz" {
			if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && f >= 1 {
				return int64(f)
			}
		}
	}
	return 1000
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// portBindings maps each labelled port of the group's network to its host
// port, tcp and udp, as Nomad's ports = ["http"]. The ports come from the
// task env the client built (NOMAD_HOST_PORT_<label>, NOMAD_PORT_<label>
// is the port inside: `to`, else the host port; NOMAD_HOST_IP_<label>).
func portBindings(labels []string, env map[string]string) (nat.PortSet, nat.PortMap, error) {
	if len(labels) == 0 {
		return nil, nil, nil
	}
	set, pm := nat.PortSet{}, nat.PortMap{}
	for _, l := range labels {
		el := envLabel(l)
		host, inside := env["NOMAD_HOST_PORT_"+el], env["NOMAD_PORT_"+el]
		if host == "" || inside == "" {
			return nil, nil, fmt.Errorf("ports: %q is not a port of the group's network", l)
		}
		for _, proto := range []string{"tcp", "udp"} {
			p := nat.Port(inside + "/" + proto)
			set[p] = struct{}{}
			pm[p] = append(pm[p], nat.PortBinding{HostIP: env["NOMAD_HOST_IP_"+el], HostPort: host})
		}
	}
	return set, pm, nil
}

// envLabel makes a port label usable in a variable name, as the client does.
func envLabel(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}
