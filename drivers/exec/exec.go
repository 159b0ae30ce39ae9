// Package exec is the exec driver: like raw_exec, plus cgroup v1 memory and
// cpu limits (scoped per task ID) when running as root on a host with
// /sys/fs/cgroup/memory. Enabled by default when root on Linux. Filesystem
// isolation (chroot, namespaces) is a later issue.
package exec

import (
	"os"
	"runtime"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/internal/execdriver"
)

// Name is the driver name in job files.
const Name = "exec"

// New returns an exec driver. Task config: command, args.
func New(logger hclog.Logger) base.Driver {
	return execdriver.New(execdriver.Options{
		Name:             Name,
		EnabledByDefault: runtime.GOOS == "linux" && os.Geteuid() == 0,
		Cgroups:          true,
		ConfigKeys:       []string{"no_pivot_root", "default_pid_mode", "default_ipc_mode", "allow_caps"},
		Logger:           logger,
	})
}
