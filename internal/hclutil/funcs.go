package hclutil

import (
	"fmt"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// WrapFunctions returns fns with every function wrapped so that a call
// checks the limiter: not after the deadline; no argument over the value
// limits; for the functions whose result size follows from their
// arguments (setproduct, concat, join, format, indent, replace, regexall,
// csvdecode, jsondecode, …) no result over the limits, refused before it
// is built; and every result checked against the limits and spent as work.
// A refused call is an error of that call, which HCL reports as a
// diagnostic at the call.
func (l *Limiter) WrapFunctions(fns map[string]function.Function) map[string]function.Function {
	out := make(map[string]function.Function, len(fns)+2)
	for name, f := range fns {
		out[name] = l.wrap(name, f)
	}
	return out
}

func (l *Limiter) wrap(name string, f function.Function) function.Function {
	return function.New(&function.Spec{
		Description: f.Description(),
		Params:      f.Params(),
		VarParam:    f.VarParam(),
		Type: func(args []cty.Value) (cty.Type, error) {
			if err := l.Check(); err != nil {
				return cty.NilType, err
			}
			return f.ReturnTypeForValues(args)
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if err := l.checkArgs(name, args); err != nil {
				return cty.NilVal, err
			}
			v, err := f.Call(args)
			if err != nil {
				return v, err
			}
			if err := l.CheckValue(v, "the result"); err != nil {
				return cty.NilVal, err
			}
			elems, bytes := Size(v, l.MaxElements, l.MaxStringBytes)
			return v, l.Spend(elems+bytes>>10, "the result")
		},
	})
}

// checkArgs refuses a call whose arguments are over the value limits, or
// whose result would be (precheck), before the function runs.
func (l *Limiter) checkArgs(name string, args []cty.Value) error {
	if err := l.Check(); err != nil {
		return err
	}
	for i, a := range args {
		if err := l.CheckValue(a, fmt.Sprintf("argument %d", i+1)); err != nil {
			return err
		}
	}
	known := make([]cty.Value, len(args))
	for i, a := range args {
		known[i], _ = a.UnmarkDeep()
		if !known[i].IsWhollyKnown() {
			return nil // an unknown result costs nothing
		}
	}
	check, ok := prechecks[name]
	if !ok {
		return nil
	}
	elems, bytes := check(known)
	switch {
	case elems > l.MaxElements:
		return l.trip(limitf("the result would have %d elements, more than the limit of %d", elems, l.MaxElements))
	case bytes > l.MaxStringBytes:
		return l.trip(limitf("the result would hold %d bytes, more than the limit of %d", bytes, l.MaxStringBytes))
	}
	return nil
}
