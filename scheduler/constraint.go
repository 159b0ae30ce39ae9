package scheduler

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/go-version"

	"github.com/nomadish/nomadish/structs"
)

// targetKind says where a constraint target's value comes from.
type targetKind uint8

const (
	targetLiteral    targetKind = iota
	targetAttr                  // ${attr.<key>}
	targetMeta                  // ${meta.<key>}
	targetNodeID                // ${node.unique.id}
	targetNodeName              // ${node.unique.name}
	targetDatacenter            // ${node.datacenter}
	targetClass                 // ${node.class}
	targetPool                  // ${node.pool}
	targetRegion                // ${node.region} (the attribute nomad.region)
	targetUnknown               // any other ${...}: never found
)

// target is a parsed constraint target, resolved against each node without
// re-parsing or allocating.
type target struct {
	kind targetKind
	key  string // the literal, or the attribute or meta key
}

// parseTarget parses an LTarget or RTarget: a literal, or one ${...}
// interpolation of the forms listed in targetKind.
func parseTarget(s string) target {
	if !strings.HasPrefix(s, "${") || !strings.HasSuffix(s, "}") {
		return target{kind: targetLiteral, key: s}
	}
	inner := s[2 : len(s)-1]
	switch inner {
	case "node.unique.id":
		return target{kind: targetNodeID}
	case "node.unique.name":
		return target{kind: targetNodeName}
	case "node.datacenter":
		return target{kind: targetDatacenter}
	case "node.class":
		return target{kind: targetClass}
	case "node.pool":
		return target{kind: targetPool}
	case "node.region":
		return target{kind: targetRegion}
	}
	if k, ok := strings.CutPrefix(inner, "attr."); ok {
		return target{kind: targetAttr, key: k}
	}
	if k, ok := strings.CutPrefix(inner, "meta."); ok {
		return target{kind: targetMeta, key: k}
	}
	return target{kind: targetUnknown, key: s}
}

// resolve returns the target's value on node n and whether it is set.
func (t target) resolve(n *structs.Node) (string, bool) {
	switch t.kind {
	case targetLiteral:
		return t.key, true
	case targetAttr:
		v, ok := n.Attributes[t.key]
		return v, ok
	case targetMeta:
		v, ok := n.Meta[t.key]
		return v, ok
	case targetNodeID:
		return n.ID, true
	case targetNodeName:
		return n.Name, true
	case targetDatacenter:
		return n.Datacenter, true
	case targetClass:
		return n.NodeClass, true
	case targetPool:
		return structs.NodePoolOf(n), true
	case targetRegion:
		v, ok := n.Attributes["nomad.region"]
		return v, ok
	}
	return "", false
}

// operator is a constraint operand, parsed once.
type operator uint8

const (
	opInvalid operator = iota
	opEqual
	opNotEqual
	opLess
	opLessEqual
	opGreater
	opGreaterEqual
	opIsSet
	opIsNotSet
	opRegexp
	opVersion
	opSemver
	opSetContainsAll // set_contains and set_contains_all
	opSetContainsAny
	opDistinctHosts
	opDistinctProperty
)

func parseOperator(s string) operator {
	switch s {
	case structs.ConstraintEqual, "==", "is", "":
		return opEqual
	case structs.ConstraintNotEqual, "not":
		return opNotEqual
	case structs.ConstraintLess:
		return opLess
	case structs.ConstraintLessEqual:
		return opLessEqual
	case structs.ConstraintGreater:
		return opGreater
	case structs.ConstraintGreaterEqual:
		return opGreaterEqual
	case structs.ConstraintAttributeIsSet:
		return opIsSet
	case structs.ConstraintAttributeIsNotSet:
		return opIsNotSet
	case structs.ConstraintRegex:
		return opRegexp
	case structs.ConstraintVersion:
		return opVersion
	case structs.ConstraintSemver:
		return opSemver
	case structs.ConstraintSetContains, structs.ConstraintSetContainsAll:
		return opSetContainsAll
	case structs.ConstraintSetContainsAny:
		return opSetContainsAny
	case structs.ConstraintDistinctHosts:
		return opDistinctHosts
	case structs.ConstraintDistinctProperty:
		return opDistinctProperty
	}
	return opInvalid
}

// constraintCache holds, for one evaluation, the parsed regular expressions
// and version constraints, keyed by their text. A text that does not parse
// is cached as nil, and a constraint using it never matches.
type constraintCache struct {
	regexps  map[string]*regexp.Regexp
	versions map[string]version.Constraints
	semvers  map[string]structs.SemverConstraints
}

func newConstraintCache() *constraintCache {
	return &constraintCache{
		regexps:  map[string]*regexp.Regexp{},
		versions: map[string]version.Constraints{},
		semvers:  map[string]structs.SemverConstraints{},
	}
}

func (c *constraintCache) regexp(s string) *regexp.Regexp {
	re, ok := c.regexps[s]
	if !ok {
		re, _ = regexp.Compile(s)
		c.regexps[s] = re
	}
	return re
}

func (c *constraintCache) version(s string) version.Constraints {
	vc, ok := c.versions[s]
	if !ok {
		vc, _ = version.NewConstraint(s)
		c.versions[s] = vc
	}
	return vc
}

func (c *constraintCache) semver(s string) structs.SemverConstraints {
	sc, ok := c.semvers[s]
	if !ok {
		sc, _ = structs.ParseSemverConstraint(s)
		c.semvers[s] = sc
	}
	return sc
}

// checkOperator applies op to the resolved left and right values, as
// Nomad's checkConstraint does. distinct_* always pass here: they are
// checked against allocations by their own checkers.
func (c *constraintCache) checkOperator(op operator, l, r string, lFound, rFound bool) bool {
	switch op {
	case opEqual:
		return lFound && rFound && l == r
	case opNotEqual:
		return lFound != rFound || l != r
	case opLess, opLessEqual, opGreater, opGreaterEqual:
		return lFound && rFound && checkOrder(op, l, r)
	case opIsSet:
		return lFound
	case opIsNotSet:
		return !lFound
	case opRegexp:
		re := c.regexp(r)
		return lFound && rFound && re != nil && re.MatchString(l)
	case opVersion:
		vc := c.version(r)
		if !lFound || !rFound || vc == nil {
			return false
		}
		v, err := version.NewVersion(l)
		return err == nil && vc.Check(v)
	case opSemver:
		sc := c.semver(r)
		if !lFound || !rFound || sc == nil {
			return false
		}
		v, err := version.NewSemver(l)
		return err == nil && sc.Check(v)
	case opSetContainsAll:
		return lFound && rFound && setContains(l, r, true)
	case opSetContainsAny:
		return lFound && rFound && setContains(l, r, false)
	case opDistinctHosts, opDistinctProperty:
		return true
	}
	return false
}

// checkOrder compares l and r as integers if both parse as integers, else
// as floats if both parse as floats, else as strings.
func checkOrder(op operator, l, r string) bool {
	cmp := orderOf(l, r)
	switch op {
	case opLess:
		return cmp < 0
	case opLessEqual:
		return cmp <= 0
	case opGreater:
		return cmp > 0
	}
	return cmp >= 0
}

func orderOf(l, r string) int {
	if li, err := strconv.ParseInt(l, 10, 64); err == nil {
		if ri, err := strconv.ParseInt(r, 10, 64); err == nil {
			return compare(li, ri)
		}
	}
	if lf, err := strconv.ParseFloat(l, 64); err == nil {
		if rf, err := strconv.ParseFloat(r, 64); err == nil {
			return compare(lf, rf)
		}
	}
	return strings.Compare(l, r)
}

func compare[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// setContains reports whether the comma-separated set have holds all (or,
// with all false, any) of the comma-separated values in want. Items are
// trimmed of spaces. It does not allocate.
func setContains(have, want string, all bool) bool {
	for rest := want; ; {
		item, tail, more := strings.Cut(rest, ",")
		found := listHas(have, strings.TrimSpace(item))
		if all && !found {
			return false
		}
		if !all && found {
			return true
		}
		if !more {
			return all
		}
		rest = tail
	}
}

func listHas(list, item string) bool {
	for rest := list; ; {
		v, tail, more := strings.Cut(rest, ",")
		if strings.TrimSpace(v) == item {
			return true
		}
		if !more {
			return false
		}
		rest = tail
	}
}
