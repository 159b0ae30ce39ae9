package cli

import (
	"fmt"

	"github.com/nomadish/nomadish/drivers"
)

// pluginCommand is the hidden `plugin DRIVER`: the client launches the
// nomadish binary this way to run a driver as a go-plugin subprocess.
func pluginCommand(m *Meta, args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(m.Err, "Usage: nomadish plugin DRIVER (run by the client, not by hand)")
		return exitError
	}
	if err := drivers.Serve(args[0]); err != nil {
		return m.errorf("serving plugin %q: %v", args[0], err)
	}
	return exitOK
}
