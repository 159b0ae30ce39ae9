package jobspec

import (
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nomadish/nomadish/internal/hclutil"
)

// decodeConfig decodes a task's driver config generically, as Nomad hands it
// to the driver: arguments become strings, int64 (whole numbers), float64,
// bools, []any and map[string]any; each nested block becomes one
// map[string]any appended to a []any under its type. A labeled block nests one
// level per label: mount "a" { x = 1 } is {"mount": [{"a": [{"x": 1}]}]}.
// The driver validates the shape.
func (p *parser) decodeConfig(body *hclsyntax.Body) map[string]any {
	out := map[string]any{}
	for _, a := range hclutil.SortedAttrs(body) {
		val, diags := p.value(a.Expr, p.ctx)
		p.diags = append(p.diags, diags...)
		if !diags.HasErrors() {
			out[a.Name] = hclutil.CtyToGo(val)
		}
	}
	for _, b := range body.Blocks {
		if _, ok := body.Attributes[b.Type]; ok {
			p.errorf(b.TypeRange, "Duplicate config key",
				"%q is set both as an argument (at %s) and as a block.", b.Type, hclutil.Pos(body.Attributes[b.Type].NameRange))
			continue
		}
		var v any = p.decodeConfig(b.Body)
		for i := len(b.Labels) - 1; i >= 0; i-- {
			v = map[string]any{b.Labels[i]: []any{v}}
		}
		list, _ := out[b.Type].([]any)
		out[b.Type] = append(list, v)
	}
	return out
}
