package client_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/nomadish/nomadish/drivers"
	"github.com/nomadish/nomadish/drivers/catalog"
)

// TestMain lets the test binary serve as the driver plugin executable:
// the client launches "<test binary> plugin <driver>".
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "plugin" {
		if err := drivers.Serve(catalog.Builtin, os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
