package drivers

import (
	"fmt"
	"os"
	"testing"
)

// TestMain lets the test binary serve as the plugin: Launch(os.Args[0], name)
// runs "<test binary> plugin <name>", as the client runs the nomadish binary.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "plugin" {
		if err := Serve(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
