package jobspec

import (
	"fmt"
	"math/big"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/nomadish/nomadish/internal/hclutil"
	"github.com/nomadish/nomadish/internal/suggest"
)

// blockFuncs maps the block types a body accepts to their decoders.
type blockFuncs map[string]func(b *hclsyntax.Block)

// bodySpec says what a body ("job", "group", "task"…) accepts.
type bodySpec struct {
	where  string         // the block type, for messages
	attrs  map[string]any // argument name -> destination pointer (see evalInto)
	blocks blockFuncs
	multi  map[string]bool // block types that may repeat
}

// decodeBody decodes a body against spec. Arguments and blocks Nomad knows
// but nomadish ignores (see unimplemented.go) become warnings; anything
// else unknown is an error at its name.
func (p *parser) decodeBody(body *hclsyntax.Body, spec bodySpec) {
	if !p.inTime(body.SrcRange) {
		return
	}
	for _, a := range hclutil.SortedAttrs(body) {
		if dst, ok := spec.attrs[a.Name]; ok {
			p.evalInto(a, p.ctx, dst)
			continue
		}
		if ignoredAttr(spec.where, a.Name) {
			p.warnf(a.NameRange, "Unsupported argument ignored",
				"nomadish does not implement %s.%s yet; the argument is ignored.", spec.where, a.Name)
			continue
		}
		p.errorf(a.NameRange, "Unsupported argument", "An argument named %q is not expected in a %s block.%s",
			a.Name, spec.where, suggest.DidYouMean(a.Name, spec.names()))
	}
	seen := map[string]*hclsyntax.Block{}
	for _, b := range body.Blocks {
		fn, ok := spec.blocks[b.Type]
		switch {
		case ok:
			if prev := seen[b.Type]; prev != nil && !spec.multi[b.Type] {
				p.errorf(b.TypeRange, "Duplicate "+b.Type+" block",
					"Only one %s block is allowed in a %s block; the first is at %s.", b.Type, spec.where, hclutil.Pos(prev.TypeRange))
				continue
			}
			seen[b.Type] = b
			fn(b)
		case ignoredBlock(spec.where, b.Type):
			p.warnf(b.TypeRange, "Unsupported block ignored",
				"nomadish does not implement %q blocks in a %s yet; this one is ignored.", b.Type, spec.where)
		default:
			p.errorf(b.TypeRange, "Unsupported block type", "Blocks of type %q are not expected in a %s block.%s",
				b.Type, spec.where, suggest.DidYouMean(b.Type, spec.names()))
		}
	}
}

// names lists the argument and block names spec accepts: what a misspelt
// name is compared with (an argument typed as a block is a typo too).
func (spec bodySpec) names() []string {
	out := make([]string, 0, len(spec.attrs)+len(spec.blocks))
	for n := range spec.attrs {
		out = append(out, n)
	}
	for n := range spec.blocks {
		out = append(out, n)
	}
	return out
}

// evalInto evaluates a's expression and stores it in dst, one of *string,
// *int, *bool, *[]string, *time.Duration, *map[string]string. A null value
// leaves dst unchanged. It reports false on error.
func (p *parser) evalInto(a *hclsyntax.Attribute, ctx *hcl.EvalContext, dst any) bool {
	val, diags := p.value(a.Expr, ctx)
	p.diags = append(p.diags, diags...)
	if diags.HasErrors() {
		return false
	}
	if val.IsNull() {
		return true
	}
	var err error
	switch d := dst.(type) {
	case *string:
		err = p.toString(val, d)
	case *int:
		err = toInt(val, d)
	case *bool:
		var v cty.Value
		if v, err = convert.Convert(val, cty.Bool); err == nil && !v.IsNull() {
			*d = v.True()
		}
	case *[]string:
		err = toStringList(val, d)
	case *map[string]string:
		err = toStringMap(val, d)
	case *time.Duration:
		var s string
		if err = p.toString(val, &s); err == nil {
			if *d, err = time.ParseDuration(s); err != nil {
				p.errorf(a.Expr.Range(), "Invalid duration",
					"The value %q of %q is not a duration; use a number with a unit, like \"30s\", \"5m\" or \"1h\".", s, a.Name)
				return false
			}
		}
	default:
		panic(fmt.Sprintf("jobspec: evalInto: unsupported destination %T", dst)) // programming error
	}
	if err != nil {
		p.errorf(a.Expr.Range(), "Incorrect attribute value type", "Inappropriate value for attribute %q: %s.", a.Name, err)
		return false
	}
	return true
}

func (p *parser) toString(val cty.Value, dst *string) error {
	v, err := convert.Convert(val, cty.String)
	if err != nil {
		return fmt.Errorf("string required")
	}
	*dst = v.AsString()
	return nil
}

func toInt(val cty.Value, dst *int) error {
	v, err := convert.Convert(val, cty.Number)
	if err != nil {
		return fmt.Errorf("number required")
	}
	bf := v.AsBigFloat()
	i, acc := bf.Int64()
	if !bf.IsInt() || acc != big.Exact || int64(int(i)) != i {
		return fmt.Errorf("a whole number is required, got %s", bf.Text('g', -1))
	}
	*dst = int(i)
	return nil
}

func toStringList(val cty.Value, dst *[]string) error {
	v, err := convert.Convert(val, cty.List(cty.String))
	if err != nil {
		return fmt.Errorf("list of string required")
	}
	out := make([]string, 0, v.LengthInt())
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsNull() {
			return fmt.Errorf("list elements must not be null")
		}
		out = append(out, e.AsString())
	}
	*dst = out
	return nil
}

func toStringMap(val cty.Value, dst *map[string]string) error {
	v, err := convert.Convert(val, cty.Map(cty.String))
	if err != nil {
		return fmt.Errorf("map of string required")
	}
	if *dst == nil {
		*dst = make(map[string]string, v.LengthInt())
	}
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		if e.IsNull() {
			return fmt.Errorf("value of %q must not be null", k.AsString())
		}
		(*dst)[k.AsString()] = e.AsString()
	}
	return nil
}

// stringMapBlock decodes a block of "key = value" arguments (meta, env) into
// dst, converting numbers and bools to strings.
func (p *parser) stringMapBlock(b *hclsyntax.Block, dst *map[string]string) {
	p.rejectBlocks(b.Body, b.Type)
	if *dst == nil {
		*dst = make(map[string]string, len(b.Body.Attributes))
	}
	for _, a := range hclutil.SortedAttrs(b.Body) {
		var s string
		if p.evalInto(a, p.ctx, &s) {
			(*dst)[a.Name] = s
		}
	}
}
