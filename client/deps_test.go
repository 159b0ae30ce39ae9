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
	pkgs := []string{".", "./allocdir", "./allocfs", "./allocrunner", "./fingerprint", "./logstream", "./network", "./pluginmgr", "./state", "./taskrunner"}
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

// TestDepsNoConcreteDrivers keeps the client free of concrete drivers: it
// imports drivers (Launch, Catalog) only, and the agent hands it
// drivers/catalog.Builtin, so adding a driver never touches client/.
func TestDepsNoConcreteDrivers(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const mod = "github.com/nomadish/nomadish/drivers/"
	for _, dep := range strings.Fields(string(out)) {
		rest, ok := strings.CutPrefix(dep, mod)
		if !ok {
			continue
		}
		switch strings.SplitN(rest, "/", 2)[0] {
		case "qemu", "virt", "docker", "exec", "rawexec", "mock", "catalog":
			t.Errorf("client depends on %s", dep)
		}
	}
}
