package docker

import (
	"fmt"
	"path/filepath"

	"github.com/docker/docker/api/types/mount"
)

// parseMounts reads Nomad's mount blocks (`mount { type source target
// readonly }`, or the older `mounts = [{...}]` list) into engine mounts.
// type is "bind" (default; a relative source is in the task dir), "volume"
// (a named engine volume) or "tmpfs" (tmpfs_options { size } in bytes).
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
		case "bind_options", "volume_options":
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

// resolveMounts makes relative bind sources absolute in taskDir; absolute
// ones need the plugin's volumes { enabled = true }, as for volumes.
func resolveMounts(mounts []mount.Mount, taskDir string, enabled bool) ([]mount.Mount, error) {
	out := make([]mount.Mount, len(mounts))
	for i, m := range mounts {
		if m.Type == mount.TypeBind {
			if !filepath.IsAbs(m.Source) {
				m.Source = filepath.Join(taskDir, m.Source)
			} else if !enabled {
				return nil, fmt.Errorf("mount: bind source %q: absolute host paths need volumes { enabled = true } in the docker plugin config", m.Source)
			}
		}
		out[i] = m
	}
	return out, nil
}
