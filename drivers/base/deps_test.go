package base_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDepsBase keeps the contract apart from the plugin transport (see
// doc.go): drivers/base imports only the standard library, and no concrete
// driver links package drivers, its protobuf code, gRPC or go-plugin.
func TestDepsBase(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		first := strings.SplitN(dep, "/", 2)[0]
		if strings.Contains(first, ".") && dep != "github.com/nomadish/nomadish/drivers/base" {
			t.Errorf("drivers/base depends on %s", dep)
		}
	}
	// The concrete drivers are what drivers/catalog imports besides drivers
	// and drivers/base, so a new driver is checked without listing it here.
	out, err = exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, "../catalog").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	var concrete []string
	for _, imp := range strings.Fields(string(out)) {
		if strings.HasPrefix(imp, "github.com/nomadish/nomadish/drivers/") && !strings.HasSuffix(imp, "/drivers/base") {
			concrete = append(concrete, imp)
		}
	}
	if len(concrete) < 5 {
		t.Fatalf("drivers/catalog imports %v: fewer drivers than the five built in", concrete)
	}
	out, err = exec.Command("go", append([]string{"list", "-deps"}, concrete...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch dep {
		case "github.com/nomadish/nomadish/drivers", "github.com/nomadish/nomadish/drivers/proto",
			"google.golang.org/grpc", "github.com/hashicorp/go-plugin":
			t.Errorf("a concrete driver depends on %s", dep)
		}
	}
}
