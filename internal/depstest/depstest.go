// Package depstest turns the architecture's layering rules into tests: a
// part (the FSM, the endpoints, the RPC transport, the reconciler, the
// scheduler...) imports only what it may, and its test fails, naming the
// import chain, the day it reaches back into the whole. It runs `go list`
// from the calling test's package directory.
package depstest

import (
	"os/exec"
	"strings"
	"testing"
)

// isStandard reports whether an import path is the standard library's:
// its first element has no dot (module paths start with a host name).
func isStandard(p string) bool { return !strings.Contains(strings.SplitN(p, "/", 2)[0], ".") }

// OnlyImports fails t for each direct import of pkg (a `go list` pattern
// such as "." or "./reconcile") outside the standard library that is not
// in allowed.
func OnlyImports(t testing.TB, pkg string, allowed ...string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", pkg, err, out)
	}
	f := strings.Fields(string(out))
	if len(f) < 2 {
		t.Fatalf("go list %s gave no imports: %q", pkg, out)
	}
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[a] = true
	}
	for _, p := range f[1:] {
		if !isStandard(p) && !ok[p] {
			t.Errorf("%s imports %s: only the standard library and %s are allowed", f[0], p, strings.Join(allowed, ", "))
		}
	}
}

// Rule is one forbidden dependency: Path itself and, unless Exact, every
// package under it.
type Rule struct {
	Path  string
	Exact bool
}

// Under forbids path and every package below it.
func Under(path string) Rule { return Rule{Path: path} }

// Exactly forbids path alone (its subpackages stay allowed).
func Exactly(path string) Rule { return Rule{Path: path, Exact: true} }

func (r Rule) matches(p string) bool {
	return p == r.Path || (!r.Exact && strings.HasPrefix(p, r.Path+"/"))
}

// Forbid fails t for each package pkg depends on, directly or through
// other packages, that a rule forbids, naming the chain that leads there.
// The walk does not descend into the packages in skip (a dependency whose
// own imports the code never reaches, such as msgpack's RPC codec).
func Forbid(t testing.TB, pkg string, skip []string, rules ...Rule) {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	imports := map[string][]string{}
	for _, line := range lines {
		f := strings.Fields(line)
		imports[f[0]] = f[1:]
	}
	self := strings.Fields(lines[len(lines)-1])[0] // -deps lists the package itself last
	if len(imports) < 2 {
		t.Fatalf("go list -deps %s gave too little to judge:\n%s", pkg, out)
	}
	skipped := map[string]bool{}
	for _, s := range skip {
		skipped[s] = true
	}
	via := map[string]string{self: ""}
	queue := []string{self}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if skipped[p] {
			continue
		}
		for _, q := range imports[p] {
			if _, seen := via[q]; !seen {
				via[q] = p
				queue = append(queue, q)
			}
		}
	}
	for d := range via {
		for _, r := range rules {
			if r.matches(d) {
				t.Errorf("%s depends on %s (forbidden: %s) via %s", self, d, r.Path, chain(via, d))
			}
		}
	}
}

func chain(via map[string]string, p string) string {
	var c []string
	for ; p != ""; p = via[p] {
		c = append([]string{p}, c...)
	}
	return strings.Join(c, " -> ")
}
