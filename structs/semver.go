package structs

import (
	"fmt"
	"strings"

	"github.com/hashicorp/go-version"
)

// SemverConstraints is a parsed "semver" constraint: a comma-separated list
// of "<op> <major.minor.patch[-pre][+build]>" terms, all of which must hold.
// Unlike the "version" operator, versions compare by the semver rules:
// 1.9.0-beta1 is >= 1.8.0, and build metadata is ignored.
type SemverConstraints []semverTerm

type semverTerm struct {
	op string // "=", "!=", ">", ">=", "<", "<="
	v  *version.Version
}

// ParseSemverConstraint parses a semver constraint such as ">= 1.8.0, < 2.0.0".
// The operator may be left out (meaning "="); each version must have exactly
// three numeric parts.
func ParseSemverConstraint(s string) (SemverConstraints, error) {
	parts := strings.Split(s, ",")
	out := make(SemverConstraints, 0, len(parts))
	for _, p := range parts {
		p = strings.TrimSpace(p)
		op := ""
		for _, cand := range []string{">=", "<=", "!=", ">", "<", "="} {
			if strings.HasPrefix(p, cand) {
				op = cand
				break
			}
		}
		vs := strings.TrimSpace(p[len(op):])
		if op == "" {
			op = "="
		}
		v, err := version.NewSemver(vs)
		if err != nil {
			return nil, fmt.Errorf("malformed term %q: %w", p, err)
		}
		if core := strings.SplitN(strings.SplitN(strings.TrimPrefix(vs, "v"), "+", 2)[0], "-", 2)[0]; strings.Count(core, ".") != 2 {
			return nil, fmt.Errorf("malformed term %q: a semver version has three parts, like 1.2.3", p)
		}
		out = append(out, semverTerm{op: op, v: v})
	}
	return out, nil
}

// Check reports whether v satisfies every term.
func (cs SemverConstraints) Check(v *version.Version) bool {
	for _, t := range cs {
		c := v.Compare(t.v)
		var ok bool
		switch t.op {
		case "=":
			ok = c == 0
		case "!=":
			ok = c != 0
		case ">":
			ok = c > 0
		case ">=":
			ok = c >= 0
		case "<":
			ok = c < 0
		case "<=":
			ok = c <= 0
		}
		if !ok {
			return false
		}
	}
	return true
}
