package acl

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/nomadish/nomadish/internal/hclutil"
	"github.com/nomadish/nomadish/internal/suggest"
)

// topBlocks are the rule blocks a policy may hold, with their label count.
var topBlocks = map[string]int{
	"namespace": 1, "node_pool": 1, "host_volume": 1,
	"agent": 0, "node": 0, "operator": 0, "quota": 0, "plugin": 0,
}

func topBlockNames() []string {
	return []string{"agent", "host_volume", "namespace", "node", "node_pool", "operator", "plugin", "quota"}
}

// Parse reads a policy in Nomad's HCL policy language. filename names the
// source in errors ("policy.hcl:3:5: …"); Parse("", …) uses "policy.hcl".
// Unknown blocks, arguments, policy levels and capabilities are refused
// with their position and, for a likely typo, "Did you mean". A policy with
// no rule is refused. The returned Policy's capabilities are expanded.
func Parse(filename, rules string) (*Policy, error) {
	if filename == "" {
		filename = "policy.hcl"
	}
	src := []byte(rules)
	if diags := hclutil.CheckDepth(src, filename, hclutil.MaxDepth); diags.HasErrors() {
		return nil, hclutil.DiagError(diags)
	}
	f, diags := hclsyntax.ParseConfig(src, filename, hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		return nil, hclutil.DiagError(diags)
	}
	body := f.Body.(*hclsyntax.Body)
	p := &Policy{Raw: rules}
	d := &decoder{}
	for _, a := range hclutil.SortedAttrs(body) {
		d.errorf(a.NameRange, "Unsupported argument", "An argument named %q is not expected at the top level of a policy; rules are blocks.%s",
			a.Name, suggest.DidYouMean(a.Name, topBlockNames()))
	}
	for _, b := range body.Blocks {
		d.topBlock(p, b)
	}
	if len(d.diags) == 0 && p.IsEmpty() {
		d.errorf(body.SrcRange, "Empty policy", "A policy needs at least one rule block (%s).", strings.Join(topBlockNames(), ", "))
	}
	if d.diags.HasErrors() {
		return nil, hclutil.DiagError(hclutil.Compact(d.diags, 0))
	}
	return p, nil
}

type decoder struct {
	diags hcl.Diagnostics
}

func (d *decoder) errorf(r hcl.Range, summary, format string, args ...any) {
	rr := r
	d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary,
		Detail: fmt.Sprintf(format, args...), Subject: &rr})
}

func (d *decoder) topBlock(p *Policy, b *hclsyntax.Block) {
	n, ok := topBlocks[b.Type]
	if !ok {
		d.errorf(b.TypeRange, "Unsupported block type", "Blocks of type %q are not expected in a policy.%s",
			b.Type, suggest.DidYouMean(b.Type, topBlockNames()))
		return
	}
	if len(b.Labels) != n {
		if n == 1 {
			d.errorf(b.TypeRange, "Wrong number of labels", "A %s block takes one label, the %s name.", b.Type, strings.ReplaceAll(b.Type, "_", " "))
		} else {
			d.errorf(b.TypeRange, "Unexpected label", "A %s block takes no label.", b.Type)
		}
		return
	}
	switch b.Type {
	case "namespace":
		p.Namespaces = append(p.Namespaces, d.namespace(b))
	case "node_pool":
		r := d.rule(b, levels("deny", "read", "write"), nodePoolCapabilities, nil)
		d.checkName(b, validNodePool)
		p.NodePools = append(p.NodePools, &NodePoolPolicy{Name: b.Labels[0], Policy: r.policy,
			Capabilities: append(r.caps, expandNodePoolPolicy(r.policy)...)})
	case "host_volume":
		r := d.rule(b, levels("deny", "read", "write"), hostVolumeCapabilities, nil)
		d.checkName(b, validVolume)
		p.HostVolumes = append(p.HostVolumes, &HostVolumePolicy{Name: b.Labels[0], Policy: r.policy,
			Capabilities: append(r.caps, expandHostVolumePolicy(r.policy)...)})
	case "operator":
		r := d.rule(b, levels("deny", "read", "write"), operatorCapabilities, nil)
		p.Operator = &OperatorPolicy{Policy: r.policy, Capabilities: append(r.caps, expandOperatorPolicy(r.policy)...)}
	case "plugin":
		p.Plugin = d.levelOnly(b, levels("deny", "read", "list", "write"))
	case "agent":
		p.Agent = d.levelOnly(b, levels("deny", "read", "write"))
	case "node":
		p.Node = d.levelOnly(b, levels("deny", "read", "write"))
	case "quota":
		p.Quota = d.levelOnly(b, levels("deny", "read", "write"))
	}
}

func levels(l ...string) []string { return l }

func (d *decoder) checkName(b *hclsyntax.Block, re interface{ MatchString(string) bool }) {
	if !re.MatchString(b.Labels[0]) {
		d.errorf(b.LabelRanges[0], "Invalid name", "%q is not a valid %s name (letters, digits, '-' and '*', at most 128).",
			b.Labels[0], strings.ReplaceAll(b.Type, "_", " "))
	}
}

func (d *decoder) namespace(b *hclsyntax.Block) *NamespacePolicy {
	ns := &NamespacePolicy{Name: b.Labels[0]}
	d.checkName(b, validNamespace)
	r := d.rule(b, levels("deny", "read", "write", "scale"), namespaceCapabilities, func(vb *hclsyntax.Block) bool {
		if vb.Type != "variables" {
			return false
		}
		if len(vb.Labels) != 0 {
			d.errorf(vb.TypeRange, "Unexpected label", "A variables block takes no label.")
			return true
		}
		ns.Variables = append(ns.Variables, d.variables(vb)...)
		return true
	})
	ns.Policy = r.policy
	ns.Capabilities = expandNamespaceCapabilities(append(r.caps, expandNamespacePolicy(r.policy)...))
	return ns
}

func (d *decoder) variables(b *hclsyntax.Block) []*VariablesPathPolicy {
	for _, a := range hclutil.SortedAttrs(b.Body) {
		d.errorf(a.NameRange, "Unsupported argument", "An argument named %q is not expected in a variables block; it holds path blocks.", a.Name)
	}
	var out []*VariablesPathPolicy
	for _, pb := range b.Body.Blocks {
		if pb.Type != "path" {
			d.errorf(pb.TypeRange, "Unsupported block type", "Blocks of type %q are not expected in a variables block.%s",
				pb.Type, suggest.DidYouMean(pb.Type, []string{"path"}))
			continue
		}
		if len(pb.Labels) != 1 {
			d.errorf(pb.TypeRange, "Wrong number of labels", "A path block takes one label, the variable path (a glob).")
			continue
		}
		r := d.rule(pb, nil, variablesCapabilities, nil)
		out = append(out, &VariablesPathPolicy{PathSpec: pb.Labels[0], Capabilities: expandVariablesCapabilities(r.caps)})
	}
	return out
}

// ruleBody is what a rule block held.
type ruleBody struct {
	policy string
	caps   []string
}

// rule decodes a block's `policy` (when allowedLevels is not nil) and
// `capabilities` arguments; nested blocks go to sub, which reports whether
// it took the block.
func (d *decoder) rule(b *hclsyntax.Block, allowedLevels, allowedCaps []string, sub func(*hclsyntax.Block) bool) ruleBody {
	var r ruleBody
	known := []string{"capabilities"}
	if allowedLevels != nil {
		known = append(known, "policy")
	}
	for _, a := range hclutil.SortedAttrs(b.Body) {
		switch {
		case a.Name == "policy" && allowedLevels != nil:
			r.policy = d.level(a, b.Type, allowedLevels)
		case a.Name == "capabilities":
			r.caps = d.capabilities(a, b.Type, allowedCaps)
		default:
			d.errorf(a.NameRange, "Unsupported argument", "An argument named %q is not expected in a %s block.%s",
				a.Name, b.Type, suggest.DidYouMean(a.Name, known))
		}
	}
	for _, nb := range b.Body.Blocks {
		if sub != nil && sub(nb) {
			continue
		}
		cands := []string{}
		if sub != nil {
			cands = []string{"variables"}
		}
		d.errorf(nb.TypeRange, "Unsupported block type", "Blocks of type %q are not expected in a %s block.%s",
			nb.Type, b.Type, suggest.DidYouMean(nb.Type, cands))
	}
	return r
}

// levelOnly decodes a block that takes only `policy` (agent, node, quota,
// plugin); the policy is required.
func (d *decoder) levelOnly(b *hclsyntax.Block, allowed []string) string {
	policy := ""
	for _, a := range hclutil.SortedAttrs(b.Body) {
		if a.Name != "policy" {
			d.errorf(a.NameRange, "Unsupported argument", "An argument named %q is not expected in a %s block.%s",
				a.Name, b.Type, suggest.DidYouMean(a.Name, []string{"policy"}))
			continue
		}
		policy = d.level(a, b.Type, allowed)
	}
	for _, nb := range b.Body.Blocks {
		d.errorf(nb.TypeRange, "Unsupported block type", "Blocks of type %q are not expected in a %s block.", nb.Type, b.Type)
	}
	if _, ok := b.Body.Attributes["policy"]; !ok {
		d.errorf(b.TypeRange, "Missing policy", "A %s block needs policy = %s.", b.Type, quoteJoin(allowed))
	}
	return policy
}

func (d *decoder) level(a *hclsyntax.Attribute, block string, allowed []string) string {
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() || v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		d.errorf(a.Expr.Range(), "Invalid policy", "policy in a %s block must be a string, one of %s.", block, quoteJoin(allowed))
		return ""
	}
	s := v.AsString()
	for _, l := range allowed {
		if s == l {
			return s
		}
	}
	d.errorf(a.Expr.Range(), "Invalid policy", "%q is not a %s policy; use one of %s.%s", s, block, quoteJoin(allowed), suggest.DidYouMean(s, allowed))
	return ""
}

func (d *decoder) capabilities(a *hclsyntax.Attribute, block string, allowed []string) []string {
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() || v.IsNull() || !v.IsKnown() || !(v.Type().IsTupleType() || v.Type().IsListType()) {
		d.errorf(a.Expr.Range(), "Invalid capabilities", "capabilities in a %s block must be a list of strings.", block)
		return nil
	}
	var out []string
	rng := a.Expr.Range()
	if tc, ok := a.Expr.(*hclsyntax.TupleConsExpr); ok && len(tc.Exprs) == v.LengthInt() {
		for i, it := 0, v.ElementIterator(); it.Next(); i++ {
			_, ev := it.Element()
			out = d.capability(ev, tc.Exprs[i].Range(), block, allowed, out)
		}
		return out
	}
	for it := v.ElementIterator(); it.Next(); {
		_, ev := it.Element()
		out = d.capability(ev, rng, block, allowed, out)
	}
	return out
}

func (d *decoder) capability(v cty.Value, r hcl.Range, block string, allowed, out []string) []string {
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		d.errorf(r, "Invalid capability", "Each capability in a %s block must be a string.", block)
		return out
	}
	s := v.AsString()
	for _, c := range allowed {
		if s == c {
			return append(out, s)
		}
	}
	d.errorf(r, "Invalid capability", "%q is not a %s capability.%s", s, block, suggest.DidYouMean(s, allowed))
	return out
}

func quoteJoin(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
