package jobspec

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// keepRuntimeInterpolations rewrites, inside string templates, every
// interpolation of a plain reference whose root is not "var" or "local" into
// its own literal text: "${attr.kernel.name}" and "${NOMAD_PORT_db}" stay as
// written for the client to interpolate at run time, as Nomad's parser does.
// References anywhere else (bare, or inside function calls) are left alone and
// fail evaluation as unknown variables.
func keepRuntimeInterpolations(body *hclsyntax.Body, src []byte) {
	hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		switch e := n.(type) {
		case *hclsyntax.TemplateExpr:
			for i, part := range e.Parts {
				if lit := runtimeLiteral(part, src); lit != nil {
					e.Parts[i] = lit
				}
			}
		case *hclsyntax.TemplateWrapExpr:
			if lit := runtimeLiteral(e.Wrapped, src); lit != nil {
				e.Wrapped = lit
			}
		}
		return nil
	})
}

// runtimeLiteral returns the literal replacing expr, or nil to keep expr.
func runtimeLiteral(expr hclsyntax.Expression, src []byte) hclsyntax.Expression {
	st, ok := expr.(*hclsyntax.ScopeTraversalExpr)
	if !ok {
		return nil
	}
	switch st.Traversal.RootName() {
	case "var", "local":
		return nil
	}
	rng := st.SrcRange
	if rng.Start.Byte < 0 || rng.End.Byte > len(src) || rng.Start.Byte >= rng.End.Byte {
		return nil
	}
	text := "${" + string(src[rng.Start.Byte:rng.End.Byte]) + "}"
	return &hclsyntax.LiteralValueExpr{Val: cty.StringVal(text), SrcRange: rng}
}
