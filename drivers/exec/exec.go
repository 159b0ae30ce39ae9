// Package exec is the exec driver: raw_exec's process handling plus
// isolation, as Nomad's exec driver. Each task runs as its user (default
// nobody) under a small init that is PID 1 of a new PID namespace, in a new
// mount namespace where the host's file system is read-only but for the
// task dir (with local/, secrets/, tmp/) and the alloc dir, inside cgroups
// (v2 when delegated, else v1) with memory, cpu, pids and cpuset limits.
// Enabled by default when root on Linux; without root it is undetected,
// without namespaces or cgroups unhealthy, and it never runs a task
// unisolated. Docs: website/exec.md.
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

// New returns an exec driver. Task config: command, args. Plugin config:
// enabled, pids_limit (default execdriver.DefaultPidsLimit), and Nomad's
// no_pivot_root, default_pid_mode, default_ipc_mode, allow_caps (accepted,
// ignored).
func New(logger hclog.Logger) base.Driver {
	return execdriver.New(execdriver.Options{
		Name:             Name,
		EnabledByDefault: runtime.GOOS == "linux" && os.Geteuid() == 0,
		Isolate:          true,
		ConfigKeys:       []string{"no_pivot_root", "default_pid_mode", "default_ipc_mode", "allow_caps"},
		Logger:           logger,
	})
}

// IsInit reports whether args (os.Args) start an exec task's init: the
// driver runs the binary it is part of (os.Executable()) with the hidden
// arguments `plugin exec-init`. Every binary that runs the exec driver must
// check this first thing and then exit with RunInit's code.
func IsInit(args []string) bool { return execdriver.IsInit(args) }

// RunInit is the body of an exec task's init (PID 1 of the task's PID
// namespace); it returns the exit code to exit with.
func RunInit() int { return execdriver.RunInit() }

// Default is exec's enablement rule: on when the client is root on Linux,
// with its plugin config or an empty one.
func Default(h base.Host, cfg map[string]any, _ bool) (map[string]any, bool) {
	if !h.Root || h.OS != "linux" {
		return nil, false
	}
	if cfg == nil {
		cfg = map[string]any{}
	}
	return cfg, true
}
