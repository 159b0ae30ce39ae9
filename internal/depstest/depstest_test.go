package depstest

import (
	"fmt"
	"strings"
	"testing"
)

// recorder keeps what a check reports instead of failing the test.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper()                      {}
func (r *recorder) Errorf(f string, args ...any) { r.errs = append(r.errs, fmt.Sprintf(f, args...)) }
func (r *recorder) Fatalf(f string, args ...any) { r.TB.Fatalf(f, args...) }

func TestForbidNamesTheChain(t *testing.T) {
	r := &recorder{TB: t}
	Forbid(r, ".", nil, Under("os"), Exactly("strings"))
	joined := strings.Join(r.errs, "\n")
	for _, want := range []string{"depends on os/exec (forbidden: os) via github.com/nomadish/nomadish/internal/depstest -> os/exec",
		"depends on strings (forbidden: strings)"} {
		if !strings.Contains(joined, want) {
			t.Errorf("missing %q in:\n%s", want, joined)
		}
	}
	r = &recorder{TB: t}
	Forbid(r, ".", []string{"os/exec"}, Exactly("os"))
	for _, e := range r.errs {
		if strings.Contains(e, "via github.com/nomadish/nomadish/internal/depstest -> os/exec -> os") {
			t.Errorf("walked into a skipped package: %s", e)
		}
	}
}

func TestOnlyImports(t *testing.T) {
	r := &recorder{TB: t}
	OnlyImports(r, "../../server/fsm", "github.com/hashicorp/raft")
	joined := strings.Join(r.errs, "\n")
	if !strings.Contains(joined, "imports github.com/nomadish/nomadish/structs") || strings.Contains(joined, "imports github.com/hashicorp/raft:") {
		t.Errorf("OnlyImports reported:\n%s", joined)
	}
	r = &recorder{TB: t}
	OnlyImports(r, ".")
	if len(r.errs) != 0 {
		t.Errorf("the standard library alone was refused: %v", r.errs)
	}
}
