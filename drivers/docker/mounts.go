package docker

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/docker/docker/api/types/mount"

	"github.com/nomadish/nomadish/drivers/base"
)

// parseMounts reads Nomad's mount blocks (`mount { type source target
// readonly }`, or the older `mounts = [{...}]` list) into engine mounts.
// type is "bind" (default; a relative source is in the task dir), "volume"
// (a named engine volume; volume_options { driver_config { name options } }
// picks its driver) or "tmpfs" (tmpfs_options { size } in bytes).
func parseMounts(v any) ([]mount.Mount, error) {
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	out := make([]mount.Mount, 0, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("#%d: must be a block, got %T", i, e)
		}
		mt, err := parseMount(m)
		if err != nil {
			return nil, fmt.Errorf("#%d: %w", i, err)
		}
		out = append(out, mt)
	}
	return out, nil
}

func parseMount(m map[string]any) (mount.Mount, error) {
	mt := mount.Mount{Type: mount.TypeBind}
	for k, v := range m {
		var err error
		switch k {
		case "type":
			var s string
			s, err = str(v)
			mt.Type = mount.Type(s)
		case "source":
			mt.Source, err = str(v)
		case "target":
			mt.Target, err = str(v)
		case "readonly":
			mt.ReadOnly, err = boolean(v)
		case "tmpfs_options":
			mt.TmpfsOptions, err = tmpfsOptions(v)
		case "volume_options":
			mt.VolumeOptions, err = volumeOptions(v)
		case "bind_options":
			// accepted for compatibility with Nomad, not applied
		default:
			err = fmt.Errorf("unknown key")
		}
		if err != nil {
			return mt, fmt.Errorf("%s: %w", k, err)
		}
	}
	switch {
	case mt.Type != mount.TypeBind && mt.Type != mount.TypeVolume && mt.Type != mount.TypeTmpfs:
		return mt, fmt.Errorf("type %q: want bind, volume or tmpfs", mt.Type)
	case mt.Target == "":
		return mt, fmt.Errorf("target is required")
	case mt.Type != mount.TypeTmpfs && mt.Source == "":
		return mt, fmt.Errorf("source is required for a %s mount", mt.Type)
	}
	return mt, nil
}

func tmpfsOptions(v any) (*mount.TmpfsOptions, error) {
	if l, ok := v.([]any); ok && len(l) == 1 {
		v = l[0]
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("must be a block, got %T", v)
	}
	o := &mount.TmpfsOptions{}
	for k, e := range m {
		if k != "size" {
			return nil, fmt.Errorf("unknown key %q", k)
		}
		n, ok := e.(int64)
		if !ok {
			return nil, fmt.Errorf("size must be a number of bytes, got %T", e)
		}
		o.SizeBytes = n
	}
	return o, nil
}

// volumeOptions reads volume_options { no_copy labels driver_config { name
// options } } (a block or a list of one).
func volumeOptions(v any) (*mount.VolumeOptions, error) {
	m, err := oneBlock(v)
	if err != nil {
		return nil, err
	}
	o := &mount.VolumeOptions{}
	for k, e := range m {
		switch k {
		case "no_copy":
			o.NoCopy, err = boolean(e)
		case "labels":
			o.Labels, err = strMaps(e)
		case "driver_config":
			o.DriverConfig, err = driverConfig(e)
		default:
			err = fmt.Errorf("unknown key")
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
	}
	return o, nil
}

func driverConfig(v any) (*mount.Driver, error) {
	m, err := oneBlock(v)
	if err != nil {
		return nil, err
	}
	d := &mount.Driver{}
	for k, e := range m {
		switch k {
		case "name":
			d.Name, err = str(e)
		case "options":
			d.Options, err = strMaps(e)
		default:
			err = fmt.Errorf("unknown key")
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
	}
	return d, nil
}

// oneBlock accepts a block as a map or a list of one map.
func oneBlock(v any) (map[string]any, error) {
	if l, ok := v.([]any); ok && len(l) == 1 {
		v = l[0]
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("must be a block, got %T", v)
	}
	return m, nil
}

// strMaps merges a map or a list of maps (Nomad's list(map(string))).
func strMaps(v any) (map[string]string, error) {
	l, ok := v.([]any)
	if !ok {
		return strMap(v)
	}
	out := map[string]string{}
	for _, e := range l {
		m, err := strMap(e)
		if err != nil {
			return nil, err
		}
		for k, s := range m {
			out[k] = s
		}
	}
	return out, nil
}

// binds mounts the alloc, local and secrets dirs (resolved strictly:
// hostPaths.builtin) and the task's volumes ("host:container[:ro|rw]").
// Each volume's host path is resolved by hp: outside the allocation
// directory it needs the plugin's volumes { enabled = true }.
// label (volumes { selinuxlabel }) is added to every bind's options.
func binds(cfg *base.TaskConfig, volumes []string, hp hostPaths, label string) ([]string, error) {
	var out []string
	own := [][2]string{{cfg.AllocDir, containerAllocDir}}
	if cfg.TaskDir != "" {
		own = append(own, [2]string{filepath.Join(cfg.TaskDir, "local"), containerLocalDir},
			[2]string{filepath.Join(cfg.TaskDir, "secrets"), containerSecretsDir})
	}
	for i, d := range own {
		if d[0] == "" || (i > 0 && !isDir(d[0])) {
			continue
		}
		src, err := hp.builtin(d[1], d[0])
		if err != nil {
			return nil, err
		}
		out = append(out, bindSpec(src, d[1], "", label))
	}
	for _, v := range volumes {
		parts := strings.Split(v, ":")
		if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" || (len(parts) == 3 && parts[2] != "ro" && parts[2] != "rw") {
			return nil, fmt.Errorf("volumes: %q is not host:container[:ro]", v)
		}
		src, err := hp.resolve(fmt.Sprintf("volumes: %q", v), parts[0])
		if err != nil {
			return nil, err
		}
		mode := ""
		if len(parts) == 3 {
			mode = parts[2]
		}
		out = append(out, bindSpec(src, parts[1], mode, label))
	}
	return out, nil
}

// bindSpec is the engine's "src:dst[:opts]" with opts the comma-separated
// mode and SELinux label, when set.
func bindSpec(src, dst, mode, label string) string {
	var opts []string
	for _, o := range []string{mode, label} {
		if o != "" {
			opts = append(opts, o)
		}
	}
	if len(opts) == 0 {
		return src + ":" + dst
	}
	return src + ":" + dst + ":" + strings.Join(opts, ",")
}

// resolveMounts resolves each bind source with hp (see binds). A volume
// mount with a volume driver (volume_options { driver_config }) needs the
// plugin's volumes { enabled = true }, as in Nomad: a driver's options can
// name any host path (the local driver's type=none,o=bind,device=/).
func resolveMounts(mounts []mount.Mount, hp hostPaths) ([]mount.Mount, error) {
	out := make([]mount.Mount, len(mounts))
	for i, m := range mounts {
		switch {
		case m.Type == mount.TypeBind:
			src, err := hp.resolve(fmt.Sprintf("mount #%d: bind source", i), m.Source)
			if err != nil {
				return nil, err
			}
			m.Source = src
		case m.Type == mount.TypeVolume && m.VolumeOptions != nil && m.VolumeOptions.DriverConfig != nil && !hp.enabled:
			return nil, fmt.Errorf("mount #%d: volume_options.driver_config needs volumes { enabled = true } in the docker plugin config: %w", i, ErrNotAllowed)
		case m.Type == mount.TypeVolume && strings.ContainsAny(m.Source, "/\\"):
			return nil, fmt.Errorf("mount #%d: volume source %q must be a volume name, not a path", i, m.Source)
		}
		out[i] = m
	}
	return out, nil
}
