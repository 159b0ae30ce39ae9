package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/nomadish/nomadish/internal/hclutil"
	"github.com/nomadish/nomadish/structs"
)

// Spec files of `namespace apply FILE` and `node pool apply FILE`: Nomad's
// HCL (below) or, for a name ending in .json or with -json, the API's JSON.
// Errors name file:line:col; unknown arguments and blocks are refused.

// specBody is one HCL body read against a schema: its attributes by name
// and its blocks.
type specBody struct {
	attrs  hcl.Attributes
	blocks hcl.Blocks
}

func content(body hcl.Body, attrs []string, required []string, blocks ...hcl.BlockHeaderSchema) (*specBody, error) {
	schema := &hcl.BodySchema{Blocks: blocks}
	for _, a := range attrs {
		schema.Attributes = append(schema.Attributes, hcl.AttributeSchema{Name: a, Required: contains(required, a)})
	}
	c, diags := body.Content(schema)
	if diags.HasErrors() {
		return nil, hclutil.DiagError(diags)
	}
	seen := map[string]*hcl.Block{}
	for _, b := range c.Blocks {
		if prev := seen[b.Type]; prev != nil {
			return nil, fmt.Errorf("%s: only one %q block is allowed (the first is at %s)", hclutil.Pos(b.DefRange), b.Type, hclutil.Pos(prev.DefRange))
		}
		seen[b.Type] = b
	}
	return &specBody{attrs: c.Attributes, blocks: c.Blocks}, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (b *specBody) block(typ string) *hcl.Block {
	for _, bl := range b.blocks {
		if bl.Type == typ {
			return bl
		}
	}
	return nil
}

// str sets *dst to attribute name's string value (unchanged when absent).
func (b *specBody) str(name string, dst *string) error {
	a := b.attrs[name]
	if a == nil {
		return nil
	}
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		return hclutil.DiagError(diags)
	}
	if v.IsNull() || !v.Type().Equals(cty.String) {
		return fmt.Errorf("%s: %s: a string is required", hclutil.Pos(a.Expr.Range()), name)
	}
	*dst = v.AsString()
	return nil
}

// strs sets *dst to attribute name's list of strings.
func (b *specBody) strs(name string, dst *[]string) error {
	a := b.attrs[name]
	if a == nil {
		return nil
	}
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		return hclutil.DiagError(diags)
	}
	ty := v.Type()
	if v.IsNull() || !(ty.IsListType() || ty.IsTupleType() || ty.IsSetType()) {
		return fmt.Errorf("%s: %s: a list of strings is required", hclutil.Pos(a.Expr.Range()), name)
	}
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsNull() || !e.Type().Equals(cty.String) {
			return fmt.Errorf("%s: %s: a list of strings is required", hclutil.Pos(a.Expr.Range()), name)
		}
		*dst = append(*dst, e.AsString())
	}
	return nil
}

// boolPtr sets *dst to attribute name's bool value (unchanged when absent).
func (b *specBody) boolPtr(name string, dst **bool) error {
	a := b.attrs[name]
	if a == nil {
		return nil
	}
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		return hclutil.DiagError(diags)
	}
	if v.IsNull() || !v.Type().Equals(cty.Bool) {
		return fmt.Errorf("%s: %s: true or false is required", hclutil.Pos(a.Expr.Range()), name)
	}
	t := v.True()
	*dst = &t
	return nil
}

// parseNamespaceSpec reads a namespace spec file.
func parseNamespaceSpec(name string, src []byte, asJSON bool) (*structs.Namespace, error) {
	if asJSON || strings.HasSuffix(name, ".json") {
		var ns structs.Namespace
		return &ns, decodeSpecJSON(name, src, &ns)
	}
	f, diags := hclsyntax.ParseConfig(src, name, hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		return nil, hclutil.DiagError(diags)
	}
	b, err := content(f.Body, []string{"name", "description", "quota"}, []string{"name"},
		hcl.BlockHeaderSchema{Type: "meta"}, hcl.BlockHeaderSchema{Type: "capabilities"})
	if err != nil {
		return nil, err
	}
	ns := &structs.Namespace{}
	for _, e := range []error{b.str("name", &ns.Name), b.str("description", &ns.Description), b.str("quota", &ns.Quota)} {
		if e != nil {
			return nil, e
		}
	}
	if ns.Meta, err = decodeMeta(b.block("meta")); err != nil {
		return nil, err
	}
	if cb := b.block("capabilities"); cb != nil {
		c, err := content(cb.Body, []string{"enabled_task_drivers", "disabled_task_drivers"}, nil)
		if err != nil {
			return nil, err
		}
		ns.Capabilities = &structs.NamespaceCapabilities{}
		if err := c.strs("enabled_task_drivers", &ns.Capabilities.EnabledTaskDrivers); err != nil {
			return nil, err
		}
		if err := c.strs("disabled_task_drivers", &ns.Capabilities.DisabledTaskDrivers); err != nil {
			return nil, err
		}
	}
	return ns, nil
}

// parseNodePoolSpec reads a node pool spec file: one node_pool "name" {}
// block.
func parseNodePoolSpec(name string, src []byte, asJSON bool) (*structs.NodePool, error) {
	if asJSON || strings.HasSuffix(name, ".json") {
		var p structs.NodePool
		return &p, decodeSpecJSON(name, src, &p)
	}
	f, diags := hclsyntax.ParseConfig(src, name, hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		return nil, hclutil.DiagError(diags)
	}
	top, err := content(f.Body, nil, nil, hcl.BlockHeaderSchema{Type: "node_pool", LabelNames: []string{"name"}})
	if err != nil {
		return nil, err
	}
	pb := top.block("node_pool")
	if pb == nil {
		return nil, fmt.Errorf("%s:1:1: a node_pool \"name\" { ... } block is required", name)
	}
	b, err := content(pb.Body, []string{"description"}, nil,
		hcl.BlockHeaderSchema{Type: "meta"}, hcl.BlockHeaderSchema{Type: "scheduler_config"})
	if err != nil {
		return nil, err
	}
	p := &structs.NodePool{Name: pb.Labels[0]}
	if err := b.str("description", &p.Description); err != nil {
		return nil, err
	}
	if p.Meta, err = decodeMeta(b.block("meta")); err != nil {
		return nil, err
	}
	if sb := b.block("scheduler_config"); sb != nil {
		s, err := content(sb.Body, []string{"scheduler_algorithm", "memory_oversubscription_enabled"}, nil)
		if err != nil {
			return nil, err
		}
		p.SchedulerConfiguration = &structs.NodePoolSchedulerConfiguration{}
		if err := s.str("scheduler_algorithm", &p.SchedulerConfiguration.SchedulerAlgorithm); err != nil {
			return nil, err
		}
		if err := s.boolPtr("memory_oversubscription_enabled", &p.SchedulerConfiguration.MemoryOversubscriptionEnabled); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// decodeMeta reads a meta { k = "v" } block (nil: no block).
func decodeMeta(b *hcl.Block) (map[string]string, error) {
	if b == nil {
		return nil, nil
	}
	attrs, diags := b.Body.JustAttributes()
	if diags.HasErrors() {
		return nil, hclutil.DiagError(diags)
	}
	out := make(map[string]string, len(attrs))
	for k, a := range attrs {
		v, diags := a.Expr.Value(nil)
		if diags.HasErrors() {
			return nil, hclutil.DiagError(diags)
		}
		if v.IsNull() || !v.Type().Equals(cty.String) {
			return nil, fmt.Errorf("%s: meta %q: a string is required", hclutil.Pos(a.Expr.Range()), k)
		}
		out[k] = v.AsString()
	}
	return out, nil
}

// decodeSpecJSON decodes the API's JSON, refusing unknown fields, with the
// line and column of an error.
func decodeSpecJSON(name string, src []byte, out any) error {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		off := dec.InputOffset()
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = se.Offset
		}
		line, col := 1, 1
		for _, c := range src[:min(int(off), len(src))] {
			if c == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		return fmt.Errorf("%s:%d:%d: %v", name, line, col, err)
	}
	return nil
}
