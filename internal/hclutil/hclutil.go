// Package hclutil holds the small HCL helpers that the job file parser
// (jobspec), the agent configuration loader (agent/config), the ACL policy
// parser (acl) and the CLI's spec files share: nesting and size limits,
// bounded functions, and diagnostics rendered as file:line:col (DiagError).
package hclutil

import (
	"math/big"
	"sort"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// SortedAttrs returns a body's attributes in source order, so that
// diagnostics come out in the order a reader meets them.
func SortedAttrs(body *hclsyntax.Body) []*hclsyntax.Attribute {
	out := make([]*hclsyntax.Attribute, 0, len(body.Attributes))
	for _, a := range body.Attributes {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SrcRange.Start.Byte < out[j].SrcRange.Start.Byte })
	return out
}

// CtyToGo converts a known value to plain Go values: string, bool, int64
// for whole numbers else float64, []any for lists, sets and tuples, and
// map[string]any for maps and objects. Null and unknown values give nil.
func CtyToGo(v cty.Value) any {
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
			out = append(out, CtyToGo(e))
		}
		return out
	case ty.IsMapType() || ty.IsObjectType():
		out := make(map[string]any, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			out[k.AsString()] = CtyToGo(e)
		}
		return out
	}
	return nil
}
