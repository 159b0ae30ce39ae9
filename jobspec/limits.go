package jobspec

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/nomadish/nomadish/internal/hclutil"
)

// The parser's limits (website/jobspec.md, "Limits"): a file, var file or
// -var value nesting deeper than hclutil.MaxDepth is refused before hcl/v2
// sees it; every function call, for expression and template interpolation
// is checked against the hclutil value, work and time limits while the
// file is evaluated; every argument's value is checked before it is
// stored.

// checkDepth reports and refuses src (native syntax, or HCL-JSON when
// isJSON) when it nests too deeply to be parsed safely.
func (p *parser) checkDepth(src []byte, filename string, isJSON bool) bool {
	var diags hcl.Diagnostics
	if isJSON {
		diags = hclutil.CheckJSONDepth(src, filename, p.lim.MaxDepth)
	} else {
		diags = hclutil.CheckDepth(src, filename, p.lim.MaxDepth)
	}
	p.diags = append(p.diags, diags...)
	return !diags.HasErrors()
}

// value evaluates expr in ctx and refuses a value over the value limits.
func (p *parser) value(expr hcl.Expression, ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	val, diags := expr.Value(ctx)
	if diags.HasErrors() {
		return val, diags
	}
	if err := p.lim.CheckValue(val, "this value"); err != nil {
		return cty.DynamicVal, append(diags, p.lim.Diagnostic(expr.Range(), err))
	}
	return val, diags
}

// checkTripped fails the parse when a limit was reached, even if try or
// can swallowed the error where it happened.
func (p *parser) checkTripped() {
	if err := p.lim.Tripped(); err != nil && !p.diags.HasErrors() {
		p.diags = append(p.diags, p.lim.Diagnostic(hcl.Range{Filename: p.path, Start: hcl.InitialPos, End: hcl.InitialPos}, err))
	}
}

// inTime reports false, once, when evaluation has run out of time; the
// decoders check it before each block.
func (p *parser) inTime(rng hcl.Range) bool {
	if p.timedOut {
		return false
	}
	if err := p.lim.Check(); err != nil {
		p.timedOut = true
		p.diags = append(p.diags, p.lim.Diagnostic(rng, err))
		return false
	}
	return true
}

// parseExpr parses a -var or NOMAD_VAR_ value as an expression, with the
// same depth bound as files and instrumented for evaluation in p.bare.
func (p *parser) parseExpr(src []byte, filename string) (hclsyntax.Expression, hcl.Diagnostics) {
	if diags := hclutil.CheckExprDepth(src, filename, p.lim.MaxDepth); diags.HasErrors() {
		return nil, diags
	}
	expr, diags := hclsyntax.ParseExpression(src, filename, hcl.InitialPos)
	if !diags.HasErrors() {
		p.lim.Instrument(expr)
	}
	return expr, diags
}
