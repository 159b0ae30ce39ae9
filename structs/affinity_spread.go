package structs

import (
	"fmt"
	"regexp"
)

// Defaults of the affinity and spread blocks, as in Nomad.
const (
	DefaultAffinityWeight = 50
	DefaultSpreadWeight   = 50
)

// Validate checks one affinity as Nomad does: a known operator, a right
// target where the operator needs one, a compilable regexp, and a weight in
// -100..100 other than 0.
func (a *Affinity) Validate() error {
	var errs MultiError
	if a.LTarget == "" {
		errs.Add(fmt.Errorf("affinity %q: missing attribute", a.String()))
	}
	switch a.Operand {
	case ConstraintEqual, "==", "is", ConstraintNotEqual, "not",
		ConstraintLess, ConstraintLessEqual, ConstraintGreater, ConstraintGreaterEqual,
		ConstraintSetContains, ConstraintSetContainsAll, ConstraintSetContainsAny,
		ConstraintVersion, ConstraintSemver:
		if a.RTarget == "" {
			errs.Add(fmt.Errorf("affinity %q: operator %q requires a value", a.String(), a.Operand))
		}
	case ConstraintRegex:
		if _, err := regexp.Compile(a.RTarget); err != nil {
			errs.Add(fmt.Errorf("affinity %q: regular expression failed to compile: %v", a.String(), err))
		}
	default:
		errs.Add(fmt.Errorf("affinity %q: unknown operator %q", a.String(), a.Operand))
	}
	if a.Weight == 0 {
		errs.Add(fmt.Errorf("affinity %q: weight can't be zero", a.String()))
	}
	if a.Weight > 100 || a.Weight < -100 {
		errs.Add(fmt.Errorf("affinity %q: weight must be within the range [-100,100]", a.String()))
	}
	return errs.ErrorOrNil()
}

// Validate checks one spread as Nomad does: an attribute, a weight in 1..100,
// target values given once each, with percentages that add up to at most 100.
func (s *Spread) Validate() error {
	var errs MultiError
	if s.Attribute == "" {
		errs.Add(fmt.Errorf("spread: missing attribute"))
	}
	if s.Weight <= 0 || s.Weight > 100 {
		errs.Add(fmt.Errorf("spread %q: weight must be between 1 and 100; got %d", s.Attribute, s.Weight))
	}
	seen := map[string]bool{}
	sum := 0
	for _, t := range s.SpreadTarget {
		if seen[t.Value] {
			errs.Add(fmt.Errorf("spread %q: target value %q defined more than once", s.Attribute, t.Value))
		}
		seen[t.Value] = true
		if t.Percent > 100 {
			errs.Add(fmt.Errorf("spread %q: target percentage for value %q must be between 0 and 100", s.Attribute, t.Value))
		}
		sum += int(t.Percent)
	}
	if sum > 100 {
		errs.Add(fmt.Errorf("spread %q: sum of target percentages must not be greater than 100%%; got %d%%", s.Attribute, sum))
	}
	return errs.ErrorOrNil()
}

// validatePreferences adds to errs the problems of the affinities and
// spreads declared at one level (where: "job", `group "web"`, …). Spreads
// are nil for tasks (Nomad has none there).
func validatePreferences(where string, affinities []*Affinity, spreads []*Spread, errs *MultiError) {
	for _, a := range affinities {
		if a == nil {
			continue
		}
		if err := a.Validate(); err != nil {
			errs.Add(fmt.Errorf("%s: %w", where, err))
		}
	}
	attrs := map[string]bool{}
	for _, s := range spreads {
		if s == nil {
			continue
		}
		if attrs[s.Attribute] {
			errs.Add(fmt.Errorf("%s: spread attribute %q defined more than once", where, s.Attribute))
		}
		attrs[s.Attribute] = true
		if err := s.Validate(); err != nil {
			errs.Add(fmt.Errorf("%s: %w", where, err))
		}
	}
}
