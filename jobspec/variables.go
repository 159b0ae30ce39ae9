package jobspec

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	hcljson "github.com/hashicorp/hcl/v2/json"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/nomadish/nomadish/internal/hclutil"
	"github.com/nomadish/nomadish/internal/suggest"
)

// envVarPrefix marks environment entries that set job variables.
const envVarPrefix = "NOMAD_VAR_"

// variable is one declared input variable.
type variable struct {
	name        string
	typ         cty.Type
	defaults    *typeexpr.Defaults
	def         cty.Value // cty.NilVal when the variable has no default
	decl        hcl.Range
	validations []validation
}

// validation is a variable's validation block.
type validation struct {
	condition hcl.Expression
	message   hcl.Expression
	rng       hcl.Range
}

// decodeVariables declares the variables and resolves their values from
// defaults, NOMAD_VAR_ environment entries, var files, VarContent and -var
// flags, in that order of precedence (later wins).
func (p *parser) decodeVariables(blocks, shorthand []*hclsyntax.Block) map[string]cty.Value {
	decls := map[string]*variable{}
	declare := func(v *variable) {
		if prev, ok := decls[v.name]; ok {
			p.errorf(v.decl, "Duplicate variable declaration",
				"A variable named %q was already declared at %s.", v.name, hclutil.Pos(prev.decl))
			return
		}
		decls[v.name] = v
	}
	for _, b := range blocks {
		if v := p.decodeVariableBlock(b); v != nil {
			declare(v)
		}
	}
	for _, b := range shorthand {
		p.rejectBlocks(b.Body, "variables")
		for _, a := range hclutil.SortedAttrs(b.Body) {
			val, diags := p.value(a.Expr, p.bare)
			p.diags = append(p.diags, diags...)
			declare(&variable{name: a.Name, typ: cty.DynamicPseudoType, def: val, decl: a.NameRange})
		}
	}
	if p.diags.HasErrors() {
		return nil
	}
	values := map[string]cty.Value{}
	for name, v := range decls {
		if v.def != cty.NilVal {
			values[name] = v.def
		}
	}
	p.envValues(decls, values)
	for _, f := range p.cfg.VarFiles {
		p.fileValues(f, decls, values)
	}
	if len(p.cfg.VarContent) > 0 {
		p.contentValues("<var content>", p.cfg.VarContent, decls, values)
	}
	p.argValues(decls, values)
	for name, v := range decls {
		if _, ok := values[name]; !ok {
			p.errorf(v.decl, "Missing value for required variable",
				"The variable %q has no default; set it with -var %s=..., a var file or NOMAD_VAR_%s.", name, name, name)
		}
	}
	if !p.diags.HasErrors() {
		p.validateVariables(decls, values)
	}
	return values
}

func (p *parser) decodeVariableBlock(b *hclsyntax.Block) *variable {
	v := &variable{name: b.Labels[0], typ: cty.DynamicPseudoType, decl: b.DefRange()}
	if !hclsyntax.ValidIdentifier(v.name) {
		p.errorf(b.LabelRanges[0], "Invalid variable name", "A variable name must be a valid identifier; %q is not.", v.name)
		return nil
	}
	attrs := b.Body.Attributes
	if a, ok := attrs["type"]; ok {
		ty, defaults, diags := typeexpr.TypeConstraintWithDefaults(a.Expr)
		p.diags = append(p.diags, diags...)
		v.typ, v.defaults = ty, defaults
	}
	if a, ok := attrs["default"]; ok {
		val, diags := p.value(a.Expr, p.bare)
		p.diags = append(p.diags, diags...)
		if !diags.HasErrors() {
			v.def = p.convertVar(v, val, a.Expr.Range(), "default value")
		}
	}
	if a, ok := attrs["description"]; ok {
		var s string
		p.evalInto(a, p.bare, &s)
	}
	for _, a := range hclutil.SortedAttrs(b.Body) {
		switch a.Name {
		case "type", "default", "description":
		default:
			p.errorf(a.NameRange, "Unsupported argument",
				"An argument named %q is not expected in a variable block; use type, default, description.%s",
				a.Name, suggest.DidYouMean(a.Name, []string{"type", "default", "description"}))
		}
	}
	for _, vb := range b.Body.Blocks {
		if vb.Type != "validation" {
			p.errorf(vb.TypeRange, "Unsupported block type", "Blocks of type %q are not expected in a variable block.", vb.Type)
			continue
		}
		cond, okc := vb.Body.Attributes["condition"]
		msg, okm := vb.Body.Attributes["error_message"]
		if !okc || !okm {
			p.errorf(vb.DefRange(), "Incomplete validation block", "A validation block needs condition and error_message.")
			continue
		}
		v.validations = append(v.validations, validation{condition: cond.Expr, message: msg.Expr, rng: vb.DefRange()})
	}
	return v
}

// convertVar applies optional-attribute defaults and converts val to v's type.
func (p *parser) convertVar(v *variable, val cty.Value, rng hcl.Range, what string) cty.Value {
	if v.defaults != nil {
		val = v.defaults.Apply(val)
	}
	out, err := convert.Convert(val, v.typ)
	if err != nil {
		p.errorf(rng, "Invalid value for variable",
			"The %s for variable %q is not a %s: %s.", what, v.name, typeexpr.TypeString(v.typ), err)
		return cty.NilVal
	}
	return out
}

// rawValue turns a -var or environment string into a value: primitive and
// "any" variables take the string as is; collections parse it as HCL.
func (p *parser) rawValue(v *variable, raw, source string) cty.Value {
	rng := hcl.Range{Filename: p.path, Start: hcl.InitialPos, End: hcl.InitialPos}
	if v.typ.IsPrimitiveType() || v.typ == cty.DynamicPseudoType {
		return p.convertVar(v, cty.StringVal(raw), v.decl, source)
	}
	expr, diags := p.parseExpr([]byte(raw), fmt.Sprintf("<value for var.%s>", v.name))
	if !diags.HasErrors() {
		var val cty.Value
		val, diags = p.value(expr, p.bare)
		if !diags.HasErrors() {
			return p.convertVar(v, val, v.decl, source)
		}
	}
	p.errorf(rng, "Invalid value for variable", "The %s for variable %q is not valid HCL: %s.", source, v.name, diags.Error())
	return cty.NilVal
}

func (p *parser) envValues(decls map[string]*variable, values map[string]cty.Value) {
	for _, e := range p.cfg.Envs {
		name, raw, ok := strings.Cut(e, "=")
		if !ok || !strings.HasPrefix(name, envVarPrefix) {
			continue
		}
		name = strings.TrimPrefix(name, envVarPrefix)
		if v, ok := decls[name]; ok {
			if val := p.rawValue(v, raw, "environment value "+envVarPrefix+name); val != cty.NilVal {
				values[name] = val
			}
		}
	}
}

func (p *parser) argValues(decls map[string]*variable, values map[string]cty.Value) {
	start := hcl.Range{Filename: p.path, Start: hcl.InitialPos, End: hcl.InitialPos}
	for _, arg := range p.cfg.ArgVars {
		name, raw, ok := strings.Cut(arg, "=")
		if !ok || name == "" {
			p.errorf(start, "Invalid -var option", "The -var %q is not of the form name=value.", arg)
			continue
		}
		v, ok := decls[name]
		if !ok {
			p.errorf(start, "Undefined -var variable",
				"A value was given with -var for %q, but the job file declares no variable %q; add a variable %q block.", name, name, name)
			continue
		}
		if val := p.rawValue(v, raw, "-var value"); val != cty.NilVal {
			values[name] = val
		}
	}
}

// fileValues reads one var file (HCL, or JSON when it ends in .json).
func (p *parser) fileValues(path string, decls map[string]*variable, values map[string]cty.Value) {
	src, err := os.ReadFile(path)
	if err != nil {
		p.diags = append(p.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Failed to read var file",
			Detail: err.Error(), Subject: &hcl.Range{Filename: path, Start: hcl.InitialPos, End: hcl.InitialPos}})
		return
	}
	p.contentValues(path, src, decls, values)
}

// contentValues applies the "name = value" attributes of a var file's content.
func (p *parser) contentValues(path string, src []byte, decls map[string]*variable, values map[string]cty.Value) {
	var file *hcl.File
	var diags hcl.Diagnostics
	isJSON := strings.HasSuffix(path, ".json")
	if !p.checkDepth(src, path, isJSON) {
		return
	}
	// HCL-JSON strings are literal without a context, as var values are.
	var ctx *hcl.EvalContext
	if isJSON {
		file, diags = hcljson.Parse(src, path)
	} else {
		file, diags = hclsyntax.ParseConfig(src, path, hcl.InitialPos)
		if !diags.HasErrors() {
			p.lim.Instrument(file.Body.(*hclsyntax.Body))
		}
		ctx = p.bare
	}
	p.diags = append(p.diags, diags...)
	if diags.HasErrors() {
		return
	}
	attrs, diags := file.Body.JustAttributes()
	p.diags = append(p.diags, diags...)
	names := make([]string, 0, len(attrs))
	for n := range attrs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		a := attrs[n]
		v, ok := decls[n]
		if !ok {
			report := p.warnf
			if p.cfg.Strict {
				report = p.errorf
			}
			report(a.NameRange, "Undefined variable", "The var file sets %q, but the job file declares no such variable.", n)
			continue
		}
		val, diags := p.value(a.Expr, ctx)
		p.diags = append(p.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		if val = p.convertVar(v, val, a.Expr.Range(), "var file value"); val != cty.NilVal {
			values[n] = val
		}
	}
}

// validateVariables runs each variable's validation blocks against its value.
func (p *parser) validateVariables(decls map[string]*variable, values map[string]cty.Value) {
	ctx := &hcl.EvalContext{Functions: p.ctx.Functions, Variables: map[string]cty.Value{"var": cty.ObjectVal(values)}}
	for _, name := range sortedKeys(decls) {
		for _, vd := range decls[name].validations {
			ok, diags := vd.condition.Value(ctx)
			p.diags = append(p.diags, diags...)
			if diags.HasErrors() {
				continue
			}
			if ok.Type() != cty.Bool || ok.IsNull() || !ok.IsKnown() {
				p.errorf(vd.condition.Range(), "Invalid validation condition", "The condition must be a bool.")
				continue
			}
			if ok.True() {
				continue
			}
			msg, diags := vd.message.Value(ctx)
			text := "invalid value"
			if !diags.HasErrors() && msg.Type() == cty.String && !msg.IsNull() {
				text = msg.AsString()
			}
			p.errorf(vd.rng, "Invalid value for variable", "var.%s: %s", name, text)
		}
	}
}

// decodeLocals evaluates every locals attribute, in dependency order.
func (p *parser) decodeLocals(blocks []*hclsyntax.Block) cty.Value {
	all := map[string]*hclsyntax.Attribute{}
	for _, b := range blocks {
		p.rejectBlocks(b.Body, "locals")
		for _, a := range hclutil.SortedAttrs(b.Body) {
			if prev, ok := all[a.Name]; ok {
				p.errorf(a.NameRange, "Duplicate local value", "A local named %q was already defined at %s.", a.Name, hclutil.Pos(prev.NameRange))
				continue
			}
			all[a.Name] = a
		}
	}
	done := map[string]cty.Value{}
	for len(done) < len(all) {
		progress := false
		for _, name := range sortedKeys(all) {
			if _, ok := done[name]; ok || !localsReady(all[name].Expr, all, done) {
				continue
			}
			p.ctx.Variables["local"] = cty.ObjectVal(done)
			val, diags := p.value(all[name].Expr, p.ctx)
			p.diags = append(p.diags, diags...)
			done[name], progress = val, true
		}
		if !progress {
			for _, name := range sortedKeys(all) {
				if _, ok := done[name]; !ok {
					p.errorf(all[name].NameRange, "Cycle in local values", "The local %q depends on itself through other locals.", name)
				}
			}
			break
		}
	}
	return cty.ObjectVal(done)
}

// localsReady reports whether every local that expr refers to and that is
// defined has been evaluated (an undefined one fails at evaluation).
func localsReady(expr hcl.Expression, all map[string]*hclsyntax.Attribute, done map[string]cty.Value) bool {
	for _, tr := range expr.Variables() {
		if tr.RootName() != "local" || len(tr) < 2 {
			continue
		}
		step, ok := tr[1].(hcl.TraverseAttr)
		if !ok {
			continue
		}
		if _, defined := all[step.Name]; !defined {
			continue
		}
		if _, ok := done[step.Name]; !ok {
			return false
		}
	}
	return true
}

func (p *parser) rejectBlocks(body *hclsyntax.Body, where string) {
	for _, b := range body.Blocks {
		p.errorf(b.TypeRange, "Unsupported block type", "Blocks are not allowed in a %s block; found %q.", where, b.Type)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
