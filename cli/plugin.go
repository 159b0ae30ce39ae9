package cli

import (
	"fmt"
	"os"

	"github.com/nomadish/nomadish/drivers"
	"github.com/nomadish/nomadish/drivers/catalog"
	"github.com/nomadish/nomadish/drivers/exec"
)

// pluginCommand is the hidden `plugin DRIVER`: the client launches the
// nomadish binary this way to run a driver as a go-plugin subprocess. The
// exec driver starts it as `plugin exec-init` to run a task's init.
func pluginCommand(m *Meta, args []string) int {
	if exec.IsInit(os.Args) {
		return exec.RunInit()
	}
	if len(args) != 1 {
		fmt.Fprintln(m.Err, "Usage: nomadish plugin DRIVER (run by the client, not by hand)")
		return exitError
	}
	if err := drivers.Serve(catalog.Builtin, args[0]); err != nil {
		return m.errorf("serving plugin %q: %v", args[0], err)
	}
	return exitOK
}
