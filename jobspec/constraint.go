package jobspec

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nomadish/nomadish/structs"
)

// constraintShorthands are the arguments that set operator and value at
// once, as in Nomad: `version = ">= 1.2"` is operator "version", value
// ">= 1.2".
var constraintShorthands = []string{structs.ConstraintRegex, structs.ConstraintVersion, structs.ConstraintSemver,
	structs.ConstraintSetContains, structs.ConstraintSetContainsAll, structs.ConstraintSetContainsAny}

// constraintOperators are the operators a constraint block accepts.
var constraintOperators = set(structs.ConstraintEqual, "==", "is", structs.ConstraintNotEqual, "not",
	structs.ConstraintLess, structs.ConstraintLessEqual, structs.ConstraintGreater, structs.ConstraintGreaterEqual,
	structs.ConstraintRegex, structs.ConstraintVersion, structs.ConstraintSemver, structs.ConstraintSetContains,
	structs.ConstraintSetContainsAll, structs.ConstraintSetContainsAny, structs.ConstraintAttributeIsSet,
	structs.ConstraintAttributeIsNotSet, structs.ConstraintDistinctHosts, structs.ConstraintDistinctProperty)

// decodeConstraint decodes a constraint block (job, group or task level):
// attribute, operator (default "="), value, or one of the shorthands
// (version, semver, regexp, set_contains*, distinct_hosts = true,
// distinct_property = "${…}"). It returns nil for a block that failed to
// decode or for distinct_hosts = false. Errors point at the offending value.
func (p *parser) decodeConstraint(b *hclsyntax.Block) *structs.Constraint {
	if !p.labels(b) {
		return nil
	}
	c := &structs.Constraint{Operand: structs.ConstraintEqual}
	distinctHosts := false
	distinctProperty := ""
	attrs := map[string]any{"attribute": &c.LTarget, "operator": &c.Operand, "value": &c.RTarget,
		structs.ConstraintDistinctHosts: &distinctHosts, structs.ConstraintDistinctProperty: &distinctProperty}
	short := map[string]*string{}
	for _, op := range constraintShorthands {
		var v string
		short[op] = &v
		attrs[op] = &v
	}
	p.decodeBody(b.Body, bodySpec{where: "constraint", attrs: attrs})
	given := b.Body.Attributes
	operatorFrom := "operator"
	conflict := func(name string) {
		if _, both := given[operatorFrom]; both {
			p.errorf(given[name].NameRange, "Conflicting constraint operator",
				"%s = … sets the operator, and so does %s; keep one.", name, operatorFrom)
		}
		operatorFrom = name
	}
	for _, op := range constraintShorthands {
		if given[op] != nil {
			conflict(op)
			c.Operand, c.RTarget = op, *short[op]
		}
	}
	if given[structs.ConstraintDistinctHosts] != nil {
		conflict(structs.ConstraintDistinctHosts)
		if !distinctHosts {
			return nil
		}
		c.Operand = structs.ConstraintDistinctHosts
	}
	if given[structs.ConstraintDistinctProperty] != nil {
		conflict(structs.ConstraintDistinctProperty)
		c.Operand, c.LTarget = structs.ConstraintDistinctProperty, distinctProperty
	}
	p.checkConstraint(b, c, operatorFrom)
	return c
}

// checkConstraint reports what structs.Constraint.Validate finds, at the
// argument it concerns: the operator's, else the value's.
func (p *parser) checkConstraint(b *hclsyntax.Block, c *structs.Constraint, operatorFrom string) {
	err := c.Validate()
	if err == nil {
		return
	}
	var rng hcl.Range
	summary := "Invalid constraint"
	switch c.Operand {
	case structs.ConstraintRegex, structs.ConstraintVersion, structs.ConstraintSemver,
		structs.ConstraintSetContains, structs.ConstraintSetContainsAll, structs.ConstraintSetContainsAny:
		rng = valueRange(b, valueArg(b, operatorFrom))
		summary = "Invalid constraint value"
	case structs.ConstraintDistinctProperty:
		rng = valueRange(b, "value")
		if c.LTarget == "" {
			rng = b.OpenBraceRange
		}
	default:
		rng = constraintRange(b)
		if !constraintOperators[c.Operand] {
			rng, summary = valueRange(b, operatorFrom), "Invalid constraint operator"
		}
	}
	p.errorf(rng, summary, "%s.", capitalize(err.Error()))
}

// valueArg names the argument that holds the constraint's value: the
// shorthand itself, or value.
func valueArg(b *hclsyntax.Block, operatorFrom string) string {
	if operatorFrom != "operator" && b.Body.Attributes[operatorFrom] != nil {
		return operatorFrom
	}
	return "value"
}

// constraintRange is the value's range when the block has one, else the
// attribute's, else the block's opening brace.
func constraintRange(b *hclsyntax.Block) hcl.Range {
	for _, name := range []string{"value", "attribute"} {
		if a := b.Body.Attributes[name]; a != nil {
			return a.Expr.Range()
		}
	}
	return b.OpenBraceRange
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// decodeEphemeralDisk decodes a group's ephemeral_disk block: size (MB,
// default 300), sticky, migrate.
func (p *parser) decodeEphemeralDisk(b *hclsyntax.Block) *structs.EphemeralDisk {
	d := structs.DefaultEphemeralDisk()
	if !p.labels(b) {
		return d
	}
	p.decodeBody(b.Body, bodySpec{
		where: "ephemeral_disk",
		attrs: map[string]any{"size": &d.SizeMB, "sticky": &d.Sticky, "migrate": &d.Migrate},
	})
	if d.SizeMB < 0 {
		p.errorf(valueRange(b, "size"), "Invalid ephemeral_disk size", "size can't be negative (got %d).", d.SizeMB)
	}
	return d
}
