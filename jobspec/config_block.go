package jobspec

import (
	"math/big"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// decodeConfig decodes a task's driver config generically, as Nomad hands it
// to the driver: arguments become strings, int64 (whole numbers), float64,
// bools, []any and map[string]any; each nested block becomes one
// map[string]any appended to a []any under its type. A labeled block nests one
// level per label: mount "a" { x = 1 } is {"mount": [{"a": [{"x": 1}]}]}.
// The driver validates the shape.
func (p *parser) decodeConfig(body *hclsyntax.Body) map[string]any {
	out := map[string]any{}
	for _, a := range sortedAttrs(body) {
		val, diags := a.Expr.Value(p.ctx)
		p.diags = append(p.diags, diags...)
		if !diags.HasErrors() {
			out[a.Name] = ctyToGo(val)
		}
	}
	for _, b := range body.Blocks {
		if _, ok := body.Attributes[b.Type]; ok {
			p.errorf(b.TypeRange, "Duplicate config key",
				"%q is set both as an argument (at %s) and as a block.", b.Type, rangeString(body.Attributes[b.Type].NameRange))
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

// ctyToGo converts a known value to plain Go values.
func ctyToGo(v cty.Value) any {
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return v.AsString()
	case ty == cty.Bool:
		return v.True()
	case ty == cty.Number:
		bf := v.AsBigFloat()
		if i, acc := bf.Int64(); bf.IsInt() && acc == big.Exact {
			return i
		}
		f, _ := bf.Float64()
		return f
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		out := make([]any, 0, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = append(out, ctyToGo(e))
		}
		return out
	case ty.IsMapType() || ty.IsObjectType():
		out := make(map[string]any, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			out[k.AsString()] = ctyToGo(e)
		}
		return out
	}
	return nil
}
