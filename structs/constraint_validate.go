package structs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/go-version"
)

// DefaultEphemeralDiskMB is the size of a group's scratch disk when the job
// gives none (Nomad's default).
const DefaultEphemeralDiskMB = 300

// DefaultEphemeralDisk returns the scratch disk of a group without an
// ephemeral_disk block.
func DefaultEphemeralDisk() *EphemeralDisk { return &EphemeralDisk{SizeMB: DefaultEphemeralDiskMB} }

// NodePoolAll and NodePoolDefault are the built-in node pools: a job in
// "all" may run on every node; a node that names no pool is in "default".
const (
	NodePoolAll     = "all"
	NodePoolDefault = "default"
)

// NodePoolOf returns the pool the node is in ("default" when it names none).
func NodePoolOf(n *Node) string {
	if n.NodePool == "" {
		return NodePoolDefault
	}
	return n.NodePool
}

// InNodePool reports whether a job in pool may run on node n.
func InNodePool(pool string, n *Node) bool {
	if pool == "" {
		pool = NodePoolDefault
	}
	return pool == NodePoolAll || pool == NodePoolOf(n)
}

// Escaped reports whether the constraint's result can differ between nodes
// of one computed class: it names a unique.* target or depends on other
// allocations (distinct_hosts, distinct_property). The scheduler caches the
// result of the others per computed class.
func (c *Constraint) Escaped() bool {
	switch c.Operand {
	case ConstraintDistinctHosts, ConstraintDistinctProperty:
		return true
	}
	return targetEscapes(c.LTarget) || targetEscapes(c.RTarget)
}

func targetEscapes(t string) bool {
	return strings.Contains(t, "${node.unique.") || strings.Contains(t, "${attr.unique.") ||
		strings.Contains(t, "${meta.unique.")
}

// Validate checks the constraint's operand and, for the operands that take
// one, that its right side parses (regexp, version or semver constraint,
// distinct_property's count).
func (c *Constraint) Validate() error {
	needL := true
	switch c.Operand {
	case ConstraintEqual, "==", "is", ConstraintNotEqual, "not",
		ConstraintLess, ConstraintLessEqual, ConstraintGreater, ConstraintGreaterEqual:
		if c.RTarget == "" {
			return fmt.Errorf("constraint operator %q needs a value", c.Operand)
		}
	case ConstraintSetContains, ConstraintSetContainsAll, ConstraintSetContainsAny:
		if c.RTarget == "" {
			return fmt.Errorf("constraint operator %q needs a value (a comma-separated list)", c.Operand)
		}
	case ConstraintAttributeIsSet, ConstraintAttributeIsNotSet:
		if c.RTarget != "" {
			return fmt.Errorf("constraint operator %q takes no value", c.Operand)
		}
	case ConstraintDistinctHosts:
		needL = false
	case ConstraintDistinctProperty:
		if c.RTarget != "" {
			if n, err := strconv.Atoi(c.RTarget); err != nil || n < 1 {
				return fmt.Errorf("constraint distinct_property: value %q must be a whole number of at least 1", c.RTarget)
			}
		}
	case ConstraintRegex:
		if _, err := regexp.Compile(c.RTarget); err != nil {
			return fmt.Errorf("constraint regexp: bad regular expression %q: %w", c.RTarget, err)
		}
	case ConstraintVersion:
		if _, err := version.NewConstraint(c.RTarget); err != nil {
			return fmt.Errorf("constraint version: bad version constraint %q: %w", c.RTarget, err)
		}
	case ConstraintSemver:
		if _, err := ParseSemverConstraint(c.RTarget); err != nil {
			return fmt.Errorf("constraint semver: bad semver constraint %q: %w", c.RTarget, err)
		}
	default:
		return fmt.Errorf("unknown constraint operator %q", c.Operand)
	}
	if needL && c.LTarget == "" {
		return fmt.Errorf("constraint operator %q needs an attribute", c.Operand)
	}
	return nil
}

// validateConstraints checks the constraints of the job, its groups and
// their tasks, and the groups' ephemeral disks.
func (j *Job) validateConstraints(errs *MultiError) {
	for _, c := range j.Constraints {
		if err := c.Validate(); err != nil {
			errs.Add(fmt.Errorf("job: %w", err))
		}
	}
	for _, tg := range j.TaskGroups {
		for _, c := range tg.Constraints {
			if err := c.Validate(); err != nil {
				errs.Add(fmt.Errorf("group %q: %w", tg.Name, err))
			}
		}
		if d := tg.EphemeralDisk; d != nil && d.SizeMB < 0 {
			errs.Add(fmt.Errorf("group %q: ephemeral_disk size can't be negative", tg.Name))
		}
		for _, t := range tg.Tasks {
			for _, c := range t.Constraints {
				if err := c.Validate(); err != nil {
					errs.Add(fmt.Errorf("group %q: task %q: %w", tg.Name, t.Name, err))
				}
			}
		}
	}
}
