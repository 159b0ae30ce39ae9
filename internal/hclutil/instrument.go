package hclutil

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// The guard functions Instrument inserts. Their names hold a space, so no
// file can call them; a diagnostic reads `Call to function "for
// expression" failed: …`.
const (
	forGuard      = "for expression"
	templateGuard = "template interpolation"
)

// MaxTemplateBytes bounds the bytes all template interpolations of one
// parse insert, added up (a string of MaxStringBytes may be inserted a few
// times, not thousands of times).
const MaxTemplateBytes = 16 * MaxStringBytes

// Instrument rewrites the expressions under node so that evaluating them
// with a context from Context checks the limiter: the collection of every
// for expression (and %{for} directive) spends its length as work before
// the loop runs, and every interpolated part of a template spends its
// bytes before they are joined. Call it once, after any inspection of the
// syntax tree and before evaluation.
func (l *Limiter) Instrument(node hclsyntax.Node) {
	hclsyntax.VisitAll(node, func(n hclsyntax.Node) hcl.Diagnostics {
		switch e := n.(type) {
		case *hclsyntax.ForExpr:
			e.CollExpr = guardCall(forGuard, e.CollExpr)
		case *hclsyntax.TemplateExpr:
			for i, part := range e.Parts {
				if _, lit := part.(*hclsyntax.LiteralValueExpr); !lit {
					e.Parts[i] = guardCall(templateGuard, part)
				}
			}
		}
		return nil
	})
}

func guardCall(name string, arg hclsyntax.Expression) *hclsyntax.FunctionCallExpr {
	rng := arg.Range()
	return &hclsyntax.FunctionCallExpr{Name: name, Args: []hclsyntax.Expression{arg},
		NameRange: rng, OpenParenRange: rng, CloseParenRange: rng}
}

// Context returns an evaluation context whose functions are fns wrapped by
// WrapFunctions plus the guards Instrument inserts (so pass nil for a
// context without user functions). Variables are left to the caller.
func (l *Limiter) Context(fns map[string]function.Function) *hcl.EvalContext {
	all := l.WrapFunctions(fns)
	all[forGuard] = l.guard(func(v cty.Value) error {
		if !v.IsKnown() || v.IsNull() || !v.CanIterateElements() {
			return l.Check()
		}
		return l.Spend(v.LengthInt(), fmt.Sprintf("iterating over %d elements", v.LengthInt()))
	})
	all[templateGuard] = l.guard(func(v cty.Value) error {
		n := 0
		if v.IsKnown() && !v.IsNull() && v.Type() == cty.String {
			n = len(v.AsString())
		}
		if n > MaxTemplateBytes-l.tmplBytes {
			return l.trip(limitf("template interpolations would insert more than %d bytes in all", MaxTemplateBytes))
		}
		l.tmplBytes += n
		return l.Check()
	})
	return &hcl.EvalContext{Functions: all}
}

// guard is an identity function that runs check on its argument first.
func (l *Limiter) guard(check func(cty.Value) error) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType,
			AllowNull: true, AllowUnknown: true, AllowDynamicType: true, AllowMarked: true}},
		Type: func(args []cty.Value) (cty.Type, error) { return args[0].Type(), nil },
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			v, _ := args[0].Unmark()
			if err := check(v); err != nil {
				return cty.NilVal, err
			}
			return args[0], nil
		},
	})
}
