package config

import (
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/nomadish/nomadish/internal/hclutil"
	"github.com/nomadish/nomadish/internal/suggest"
)

// sectionBlocks are the unlabeled blocks whose arguments are "<block>.<name>" keys.
var sectionBlocks = map[string]bool{"advertise": true, "addresses": true, "ports": true, "server": true, "client": true, "tls": true, "autopilot": true, "limits": true, "acl": true, "telemetry": true, "ui": true}

// LoadFile reads one HCL agent config file. The result holds only what the
// file sets (overlay it with DefaultConfig().Merge(f) or DevConfig().Merge(f)).
// Unknown keys, wrong types and bad durations fail with "path:line:col: …".
func LoadFile(path string) (*Config, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: reading %s: %w", path, err)
	}
	return loadSource(src, path)
}

// loadSource is LoadFile of src, read from path.
func loadSource(src []byte, path string) (*Config, error) {
	body, lim, diags := parseLimited(src, path)
	if diags.HasErrors() {
		return nil, hclutil.DiagError(diags)
	}
	c := &Config{Plugins: map[string]*PluginConfig{}, set: map[string]hcl.Range{}}
	d := &decoder{cfg: c, byKey: map[string]any{}, lim: lim}
	for _, f := range c.fields() {
		d.byKey[f.key] = f.ptr
	}
	d.body(body, "")
	d.checkTripped(path)
	if d.diags.HasErrors() {
		return nil, hclutil.DiagError(hclutil.Compact(d.diags, 0))
	}
	return c, nil
}

// LoadPath loads a file, or every *.hcl file of a directory in lexical
// order merged one over the other (like Nomad's -config dir).
func LoadPath(path string) (*Config, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if !fi.IsDir() {
		return LoadFile(path)
	}
	files, err := filepath.Glob(filepath.Join(path, "*.hcl"))
	if err != nil {
		return nil, fmt.Errorf("config: listing %s: %w", path, err)
	}
	sort.Strings(files)
	out := &Config{Plugins: map[string]*PluginConfig{}, set: map[string]hcl.Range{}}
	for _, f := range files {
		c, err := LoadFile(f)
		if err != nil {
			return nil, err
		}
		out = out.Merge(c)
	}
	return out, nil
}

type decoder struct {
	cfg   *Config
	byKey map[string]any
	diags hcl.Diagnostics
	lim   *hclutil.Limiter // load_limits.go
	ctx   *hcl.EvalContext
}

func (d *decoder) body(body *hclsyntax.Body, prefix string) {
	where := "the top level"
	if prefix != "" {
		where = "a " + strings.TrimSuffix(prefix, ".") + " block"
	}
	for _, a := range hclutil.SortedAttrs(body) {
		key := prefix + a.Name
		ptr, ok := d.byKey[key]
		if !ok || sectionBlocks[key] {
			d.errorf(a.NameRange, "Unsupported argument", "An argument named %q is not expected in %s.%s",
				a.Name, where, suggest.DidYouMean(a.Name, d.names(prefix)))
			continue
		}
		if d.evalInto(a, key, ptr) {
			d.cfg.set[key] = a.NameRange
		}
	}
	for _, b := range body.Blocks {
		key := prefix + b.Type
		switch {
		case prefix == "" && sectionBlocks[b.Type] && len(b.Labels) == 0:
			d.body(b.Body, key+".")
		case key == "client.meta" && len(b.Labels) == 0:
			d.metaBlock(b, key)
		case key == "client.artifact" && len(b.Labels) == 0: // artifact.go
			d.body(b.Body, key+".")
		case (key == "client.reserved" || key == "server.server_join" || key == "server.client_introduction" || key == "server.raft_boltdb") && len(b.Labels) == 0:
			d.body(b.Body, key+".")
		case key == "client.host_volume":
			d.hostVolume(b) // host_volumes.go
		case key == "client.host_network":
			d.hostNetwork(b) // network.go
		case key == "plugin" && len(b.Labels) == 1:
			d.plugin(b)
		case key == "plugin":
			d.errorf(b.TypeRange, "Wrong number of labels", "A plugin block takes one label, the plugin's name.")
		case sectionBlocks[key] || key == "client.meta":
			d.errorf(b.TypeRange, "Unexpected label", "A %s block takes no label.", b.Type)
		default:
			d.errorf(b.TypeRange, "Unsupported block type", "Blocks of type %q are not expected in %s.%s",
				b.Type, where, suggest.DidYouMean(b.Type, d.names(prefix)))
		}
	}
}

// names lists the argument and block names a body at prefix ("",
// "server.", "client.reserved.") accepts: what a misspelt name is compared
// with.
func (d *decoder) names(prefix string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(key string) {
		rest, ok := strings.CutPrefix(key, prefix)
		if !ok || rest == "" {
			return
		}
		rest, _, _ = strings.Cut(rest, ".") // "server.server_join.retry_join" at "server." -> "server_join"
		if !seen[rest] {
			seen[rest] = true
			out = append(out, rest)
		}
	}
	for key := range d.byKey {
		add(key)
	}
	for key := range sectionBlocks {
		add(key)
	}
	for _, key := range []string{"plugin", "client.host_volume", "client.host_network", "client.meta", "client.reserved", "server.server_join", "server.client_introduction"} {
		add(key)
	}
	return out
}

func (d *decoder) metaBlock(b *hclsyntax.Block, key string) {
	m := &d.cfg.Client.Meta
	for _, a := range hclutil.SortedAttrs(b.Body) {
		var s string
		if d.evalInto(a, key+"."+a.Name, &s) {
			if *m == nil {
				*m = map[string]string{}
			}
			(*m)[a.Name] = s
		}
	}
	for _, nb := range b.Body.Blocks {
		d.errorf(nb.TypeRange, "Unsupported block type", "Blocks are not allowed in a meta block.")
	}
	d.cfg.set[key] = b.TypeRange
}

func (d *decoder) plugin(b *hclsyntax.Block) {
	name := b.Labels[0]
	p := &PluginConfig{Name: name, Config: map[string]any{}}
	for _, a := range hclutil.SortedAttrs(b.Body) {
		d.errorf(a.NameRange, "Unsupported argument", "An argument named %q is not expected in a plugin block; put driver settings in its config block.", a.Name)
	}
	for _, cb := range b.Body.Blocks {
		if cb.Type != "config" || len(cb.Labels) != 0 {
			d.errorf(cb.TypeRange, "Unsupported block type", "Blocks of type %q are not expected in a plugin block.%s",
				cb.Type, suggest.DidYouMean(cb.Type, []string{"config"}))
			continue
		}
		p.Config = d.generic(cb.Body)
	}
	d.cfg.Plugins[name] = p
}

// generic decodes a body into plain Go values: strings, int64, float64,
// bools, []any, map[string]any, and nested blocks as []any of maps.
func (d *decoder) generic(body *hclsyntax.Body) map[string]any {
	out := map[string]any{}
	for _, a := range hclutil.SortedAttrs(body) {
		val, diags := d.value(a.Expr)
		d.diags = append(d.diags, diags...)
		if !diags.HasErrors() {
			out[a.Name] = hclutil.CtyToGo(val)
		}
	}
	for _, b := range body.Blocks {
		list, _ := out[b.Type].([]any)
		out[b.Type] = append(list, d.generic(b.Body))
	}
	return out
}

// evalInto evaluates a (no variables or functions) into ptr.
func (d *decoder) evalInto(a *hclsyntax.Attribute, key string, ptr any) bool {
	val, diags := d.value(a.Expr)
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() || val.IsNull() {
		return !diags.HasErrors()
	}
	want := map[string]cty.Type{"string": cty.String, "number": cty.Number, "bool": cty.Bool,
		"list of string": cty.List(cty.String), "map of string": cty.Map(cty.String), "duration string": cty.String}
	var kind string
	switch ptr.(type) {
	case *string:
		kind = "string"
	case *int, *float64:
		kind = "number"
	case *bool:
		kind = "bool"
	case *[]string:
		kind = "list of string"
	case *map[string]string:
		kind = "map of string"
	case *time.Duration:
		kind = "duration string"
	}
	v, err := convert.Convert(val, want[kind])
	if err != nil {
		d.errorf(a.Expr.Range(), "Incorrect value type", "%s: a %s is required.", key, kind)
		return false
	}
	return d.store(a, key, kind, v, ptr)
}

func (d *decoder) store(a *hclsyntax.Attribute, key, kind string, v cty.Value, ptr any) bool {
	switch p := ptr.(type) {
	case *string:
		*p = v.AsString()
	case *bool:
		*p = v.True()
	case *int:
		bf := v.AsBigFloat()
		i, acc := bf.Int64()
		if !bf.IsInt() || acc != big.Exact || int64(int(i)) != i {
			d.errorf(a.Expr.Range(), "Incorrect value type", "%s: a whole number is required.", key)
			return false
		}
		*p = int(i)
	case *float64:
		*p, _ = v.AsBigFloat().Float64()
	case *[]string:
		*p = nil
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			*p = append(*p, e.AsString())
		}
	case *map[string]string:
		if *p == nil {
			*p = map[string]string{}
		}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			(*p)[k.AsString()] = e.AsString()
		}
	case *time.Duration:
		dur, err := time.ParseDuration(v.AsString())
		if err != nil {
			d.errorf(a.Expr.Range(), "Invalid duration", "%s: %q is not a duration; use e.g. \"10s\" or \"1m\".", key, v.AsString())
			return false
		}
		*p = dur
	}
	return true
}

func (d *decoder) errorf(rng hcl.Range, summary, detail string, args ...any) {
	r := rng
	d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, args...), Subject: &r})
}
