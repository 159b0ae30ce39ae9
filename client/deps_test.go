package client_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps keeps the client's production packages free of test-only
// imports (CONVENTIONS 20: fakes live in clienttest). Third-party
// packages are theirs to judge (go-plugin imports testing itself).
func TestDeps(t *testing.T) {
	pkgs := []string{".", "./allocdir", "./allocrunner", "./fingerprint", "./logstream", "./pluginmgr", "./state", "./taskrunner"}
	args := append([]string{"list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}"}, pkgs...)
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		for _, dep := range f[1:] {
			if dep == "testing" || strings.HasPrefix(dep, "testing/") || strings.HasSuffix(dep, "/clienttest") {
				t.Errorf("%s imports %s", f[0], dep)
			}
		}
	}
}
