package structs

// Constraint operands, as in Nomad.
const (
	ConstraintEqual             = "="
	ConstraintNotEqual          = "!="
	ConstraintLess              = "<"
	ConstraintLessEqual         = "<="
	ConstraintGreater           = ">"
	ConstraintGreaterEqual      = ">="
	ConstraintRegex             = "regexp"
	ConstraintVersion           = "version"
	ConstraintSemver            = "semver"
	ConstraintSetContains       = "set_contains"
	ConstraintSetContainsAll    = "set_contains_all"
	ConstraintSetContainsAny    = "set_contains_any"
	ConstraintAttributeIsSet    = "is_set"
	ConstraintAttributeIsNotSet = "is_not_set"
	ConstraintDistinctHosts     = "distinct_hosts"
	ConstraintDistinctProperty  = "distinct_property"
)

// Constraint restricts the nodes a job, group or task may be placed on.
// LTarget and RTarget may hold ${attr.*}, ${node.*} and ${meta.*}
// references resolved against each node.
type Constraint struct {
	LTarget string
	RTarget string
	Operand string
}

// String renders the constraint as Nomad does in explanations.
func (c *Constraint) String() string {
	return c.LTarget + " " + c.Operand + " " + c.RTarget
}

// Affinity expresses a preference (Weight -100..100, negative to avoid) for
// nodes matching LTarget Operand RTarget.
type Affinity struct {
	LTarget string
	RTarget string
	Operand string
	Weight  int8
}

// String renders the affinity.
func (a *Affinity) String() string {
	return a.LTarget + " " + a.Operand + " " + a.RTarget
}

// Spread asks the scheduler to spread allocations over the values of
// Attribute, in the given target percentages (even when none are given).
type Spread struct {
	Attribute    string
	Weight       int8
	SpreadTarget []*SpreadTarget
}

// SpreadTarget is the wanted share of one attribute value.
type SpreadTarget struct {
	Value   string
	Percent uint8
}

// EphemeralDisk is a group's scratch disk (its size counts as disk asked).
type EphemeralDisk struct {
	Sticky  bool
	SizeMB  int
	Migrate bool
}
