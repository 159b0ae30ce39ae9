package config

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nomadish/nomadish/internal/hclutil"
	"github.com/nomadish/nomadish/internal/suggest"
)

// HostVolume is one client { host_volume "name" { path read_only } } block:
// a directory of the host that jobs mount by name (website/volumes.md).
type HostVolume struct {
	Name     string
	Path     string
	ReadOnly bool
	// rng is where the block's path (else the block) is, for Validate.
	rng *hcl.Range
}

// hostVolume decodes one host_volume block into the client's volumes; a
// second block of the same name replaces the first within a file is an error.
func (d *decoder) hostVolume(b *hclsyntax.Block) {
	if len(b.Labels) != 1 {
		d.errorf(b.TypeRange, "Wrong number of labels", "A host_volume block takes one label, the volume's name.")
		return
	}
	hv := HostVolume{Name: b.Labels[0]}
	rng := b.TypeRange
	for _, a := range hclutil.SortedAttrs(b.Body) {
		key := "client.host_volume." + a.Name
		switch a.Name {
		case "path":
			d.evalInto(a, key, &hv.Path)
			rng = a.Expr.Range()
		case "read_only":
			d.evalInto(a, key, &hv.ReadOnly)
		default:
			d.errorf(a.NameRange, "Unsupported argument", "An argument named %q is not expected in a host_volume block.%s",
				a.Name, suggest.DidYouMean(a.Name, []string{"path", "read_only"}))
		}
	}
	for _, nb := range b.Body.Blocks {
		d.errorf(nb.TypeRange, "Unsupported block type", "Blocks are not allowed in a host_volume block.")
	}
	hv.rng = &rng
	for _, o := range d.cfg.Client.HostVolumes {
		if o.Name == hv.Name {
			d.errorf(b.LabelRanges[0], "Duplicate host_volume", "A host_volume named %q is already defined at %s.", hv.Name, hclutil.Pos(*o.rng))
			return
		}
	}
	d.cfg.Client.HostVolumes = append(d.cfg.Client.HostVolumes, hv)
}

// mergeHostVolumes returns base's volumes with o's over them by name.
func mergeHostVolumes(base, o []HostVolume) []HostVolume {
	return mergeByName(base, o, func(v HostVolume) string { return v.Name })
}

// mergeByName returns base's named blocks with o's over them by name,
// sorted by name (host_volume, host_network).
func mergeByName[T any](base, o []T, name func(T) string) []T {
	out := append([]T(nil), base...)
	for _, v := range o {
		replaced := false
		for i := range out {
			if name(out[i]) == name(v) {
				out[i], replaced = v, true
			}
		}
		if !replaced {
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return name(out[i]) < name(out[j]) })
	return out
}

// validateHostVolumes checks that every host volume has a name and an
// absolute path that is a directory now (at agent start), as Nomad does.
func (c *Config) validateHostVolumes(bad func(key, format string, args ...any)) {
	for _, hv := range c.Client.HostVolumes {
		key := fmt.Sprintf("client.host_volume[%q].path", hv.Name)
		msg := func(format string, args ...any) {
			if hv.rng != nil {
				bad(hclutil.Pos(*hv.rng)+": "+key, format, args...)
				return
			}
			bad(key, format, args...)
		}
		if hv.Name == "" {
			bad("client.host_volume", "a host volume needs a name")
		}
		if !filepath.IsAbs(hv.Path) {
			msg("must be an absolute path, got %q", hv.Path)
			continue
		}
		st, err := os.Stat(hv.Path)
		switch {
		case err != nil:
			msg("%v", err)
		case !st.IsDir():
			msg("%s is not a directory", hv.Path)
		}
	}
}
