package jobspec

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// checkReferences reports every var.x and local.x in the file whose x is not
// declared, with a message that says how to declare it. It runs before any
// local or job expression is evaluated, so those errors come out once, here.
func (p *parser) checkReferences(body *hclsyntax.Body, vars map[string]cty.Value, locals []*hclsyntax.Block) {
	declaredLocals := map[string]bool{}
	for _, b := range locals {
		for name := range b.Body.Attributes {
			declaredLocals[name] = true
		}
	}
	hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		st, ok := n.(*hclsyntax.ScopeTraversalExpr)
		if !ok {
			return nil
		}
		root := st.Traversal.RootName()
		if root != "var" && root != "local" {
			return nil
		}
		if len(st.Traversal) < 2 {
			p.errorf(st.SrcRange, "Invalid reference", "A reference to %q must name one, like %s.name.", root, root)
			return nil
		}
		step, ok := st.Traversal[1].(hcl.TraverseAttr)
		if !ok {
			p.errorf(st.SrcRange, "Invalid reference", "Use %s.name, not an index, to refer to a %s.", root, root)
			return nil
		}
		switch {
		case root == "var":
			if _, ok := vars[step.Name]; !ok {
				p.errorf(st.SrcRange, "Undefined variable",
					"var.%s is not declared; add a variable %q block.", step.Name, step.Name)
			}
		case !declaredLocals[step.Name]:
			p.errorf(st.SrcRange, "Undefined local",
				"local.%s is not defined; add %s = … to a locals block.", step.Name, step.Name)
		}
		return nil
	})
}
