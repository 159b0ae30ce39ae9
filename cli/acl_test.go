package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A bad policy file is refused locally, with its file:line:col, and
// nothing is sent; commands given the wrong arguments print their usage.
func TestACLPolicyApplyChecksLocally(t *testing.T) {
	f := newFakeAPI(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.hcl")
	if err := os.WriteFile(bad, []byte("namespace \"x\" {\n  polcy = \"read\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := f.run("acl", "policy", "apply", "-token", "s3cret", "x", bad)
	if code != 1 || !strings.Contains(errOut, bad+`:2:3: Unsupported argument; An argument named "polcy" is not expected in a namespace block. Did you mean "policy"?`) {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if n := f.requestCount("PUT /v1/acl"); n != 0 {
		t.Fatalf("%d requests sent for a bad policy", n)
	}
	for _, args := range [][]string{{"acl", "policy", "apply"}, {"acl", "token", "info"}, {"acl", "role", "delete"}} {
		if code, _, errOut := f.run(args...); code != 1 || !strings.Contains(errOut, "this command takes") {
			t.Errorf("%v without arguments: exit %d, %s", args, code, errOut)
		}
	}
}
