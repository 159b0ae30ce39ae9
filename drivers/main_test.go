package drivers

import (
	"fmt"
	"os"
	"testing"

	"github.com/nomadish/nomadish/drivers/mock"
	"github.com/nomadish/nomadish/drivers/rawexec"
)

// testCatalog is the drivers these tests launch (drivers/catalog imports
// this package, so its Builtin cannot be used here).
var testCatalog = Catalog{
	{Name: rawexec.Name, New: rawexec.New, Default: rawexec.Default},
	{Name: mock.Name, Aliases: []string{"mock"}, New: mock.New, Default: mock.Default},
}

// TestMain lets the test binary serve as the plugin: Launch(os.Args[0], name)
// runs "<test binary> plugin <name>", as the client runs the nomadish binary.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "plugin" {
		if err := Serve(testCatalog, os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
