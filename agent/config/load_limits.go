package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/nomadish/nomadish/internal/hclutil"
)

// parseLimited parses one config file under the parser limits of
// website/agent-config.md: a file nesting deeper than hclutil.MaxDepth is
// refused before hcl/v2 recurses into it, and its expressions are
// instrumented so that for expressions and templates are bounded in work,
// size and time (hclutil.Limiter) when evaluated with the returned limiter.
func parseLimited(src []byte, path string) (*hclsyntax.Body, *hclutil.Limiter, hcl.Diagnostics) {
	if diags := hclutil.CheckDepth(src, path, 0); diags.HasErrors() {
		return nil, nil, diags
	}
	file, diags := hclsyntax.ParseConfig(src, path, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, nil, diags
	}
	body := file.Body.(*hclsyntax.Body)
	lim := hclutil.NewLimiter(hclutil.Limits{})
	lim.Instrument(body)
	return body, lim, diags
}

// checkTripped fails the load when a limit was reached.
func (d *decoder) checkTripped(path string) {
	if err := d.lim.Tripped(); err != nil && !d.diags.HasErrors() {
		d.diags = append(d.diags, d.lim.Diagnostic(hcl.Range{Filename: path, Start: hcl.InitialPos, End: hcl.InitialPos}, err))
	}
}

// value evaluates expr (no variables or functions) within the limits.
func (d *decoder) value(expr hcl.Expression) (cty.Value, hcl.Diagnostics) {
	if d.ctx == nil {
		d.ctx = d.lim.Context(nil)
	}
	val, diags := expr.Value(d.ctx)
	if diags.HasErrors() {
		return val, diags
	}
	if err := d.lim.CheckValue(val, "this value"); err != nil {
		return cty.DynamicVal, append(diags, d.lim.Diagnostic(expr.Range(), err))
	}
	return val, diags
}
