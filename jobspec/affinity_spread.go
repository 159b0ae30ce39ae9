package jobspec

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nomadish/nomadish/structs"
)

// affinityOperators are the operators an affinity block accepts (Nomad's:
// those of constraint, less is_set, is_not_set and the distinct_* ones).
var affinityOperators = set(structs.ConstraintEqual, "==", "is", structs.ConstraintNotEqual, "not",
	structs.ConstraintLess, structs.ConstraintLessEqual, structs.ConstraintGreater, structs.ConstraintGreaterEqual,
	structs.ConstraintRegex, structs.ConstraintVersion, structs.ConstraintSemver, structs.ConstraintSetContains,
	structs.ConstraintSetContainsAll, structs.ConstraintSetContainsAny)

// affinityShorthands are the arguments that set operator and value at once,
// as in Nomad: `regexp = "^r[12]$"` is operator "regexp", value "^r[12]$".
var affinityShorthands = []string{structs.ConstraintRegex, structs.ConstraintVersion, structs.ConstraintSemver,
	structs.ConstraintSetContains, structs.ConstraintSetContainsAll, structs.ConstraintSetContainsAny}

// decodeAffinity decodes an affinity block (job, group or task level):
// attribute, operator (default "="), value, weight (default 50, -100..100,
// not 0). Errors point at the offending value.
func (p *parser) decodeAffinity(b *hclsyntax.Block) *structs.Affinity {
	if !p.labels(b) {
		return nil
	}
	a := &structs.Affinity{Operand: structs.ConstraintEqual}
	weight := structs.DefaultAffinityWeight
	attrs := map[string]any{"attribute": &a.LTarget, "operator": &a.Operand, "value": &a.RTarget, "weight": &weight}
	short := map[string]*string{}
	for _, op := range affinityShorthands {
		var v string
		short[op] = &v
		attrs[op] = &v
	}
	p.decodeBody(b.Body, bodySpec{where: "affinity", attrs: attrs})
	for _, op := range affinityShorthands {
		if at := b.Body.Attributes[op]; at != nil {
			if _, both := b.Body.Attributes["operator"]; both {
				p.errorf(at.NameRange, "Conflicting affinity operator",
					"%s = … sets the operator; remove either it or operator.", op)
			}
			a.Operand, a.RTarget = op, *short[op]
		}
	}
	at := func(name string) hcl.Range { return valueRange(b, name) }
	if a.LTarget == "" {
		p.errorf(b.OpenBraceRange, "Missing affinity attribute", "An affinity block needs attribute = \"${…}\".")
	}
	if !affinityOperators[a.Operand] {
		p.errorf(at("operator"), "Invalid affinity operator", "The operator %q is not one an affinity accepts.", a.Operand)
	}
	switch {
	case weight == 0:
		p.errorf(at("weight"), "Invalid affinity weight", "An affinity's weight can't be 0.")
	case weight < -100 || weight > 100:
		p.errorf(at("weight"), "Invalid affinity weight", "An affinity's weight must be between -100 and 100; got %d.", weight)
	}
	a.Weight = int8(max(-100, min(100, weight)))
	return a
}

// decodeSpread decodes a spread block (job or group level): attribute,
// weight (default 50, 1..100) and target "value" { percent = N } blocks whose
// percentages add up to at most 100.
func (p *parser) decodeSpread(b *hclsyntax.Block) *structs.Spread {
	if !p.labels(b) {
		return nil
	}
	s := &structs.Spread{}
	weight := structs.DefaultSpreadWeight
	sum := 0
	p.decodeBody(b.Body, bodySpec{
		where: "spread",
		attrs: map[string]any{"attribute": &s.Attribute, "weight": &weight},
		blocks: blockFuncs{"target": func(tb *hclsyntax.Block) {
			if t, pct := p.decodeSpreadTarget(tb, s); t != nil {
				s.SpreadTarget = append(s.SpreadTarget, t)
				sum += pct
			}
		}},
		multi: map[string]bool{"target": true},
	})
	if s.Attribute == "" {
		p.errorf(b.OpenBraceRange, "Missing spread attribute", "A spread block needs attribute = \"${…}\".")
	}
	if weight < 1 || weight > 100 {
		p.errorf(valueRange(b, "weight"), "Invalid spread weight", "A spread's weight must be between 1 and 100; got %d.", weight)
	}
	if sum > 100 {
		p.errorf(b.TypeRange, "Invalid spread targets", "The target percentages add up to %d%%, more than 100%%.", sum)
	}
	s.Weight = int8(max(0, min(100, weight)))
	return s
}

// decodeSpreadTarget decodes target "value" { percent = N } and returns the
// target and its percentage (before clamping to uint8).
func (p *parser) decodeSpreadTarget(b *hclsyntax.Block, s *structs.Spread) (*structs.SpreadTarget, int) {
	if !p.labels(b, "value") {
		return nil, 0
	}
	pct := 0
	p.decodeBody(b.Body, bodySpec{where: "target", attrs: map[string]any{"percent": &pct}})
	for _, t := range s.SpreadTarget {
		if t.Value == b.Labels[0] {
			p.errorf(b.LabelRanges[0], "Duplicate spread target", "The target %q is given more than once.", t.Value)
			return nil, 0
		}
	}
	if pct < 0 || pct > 100 {
		p.errorf(valueRange(b, "percent"), "Invalid spread target percent",
			"The percent of target %q must be between 0 and 100; got %d.", b.Labels[0], pct)
		pct = max(0, min(100, pct))
	}
	return &structs.SpreadTarget{Value: b.Labels[0], Percent: uint8(pct)}, pct
}

// valueRange is the range of the value of b's argument name, or of the
// block's type when the argument is not set (a default broke a rule).
func valueRange(b *hclsyntax.Block, name string) hcl.Range {
	if a := b.Body.Attributes[name]; a != nil {
		return a.Expr.Range()
	}
	return b.TypeRange
}

// appendNonNil appends v unless it is nil (a block that failed to decode).
func appendNonNil[T any](s []*T, v *T) []*T {
	if v == nil {
		return s
	}
	return append(s, v)
}
