// Package rawexec is the raw_exec driver: runs a command as the agent's
// user with no isolation beyond its own process group. Disabled (and
// undetected) until the plugin config sets enabled = true, as in Nomad.
package rawexec

import (
	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/drivers/internal/execdriver"
)

// Name is the driver name in job files.
const Name = "raw_exec"

// New returns a raw_exec driver. Task config: command (string, required),
// args (list of strings).
func New(logger hclog.Logger) base.Driver {
	return execdriver.New(execdriver.Options{
		Name:       Name,
		ConfigKeys: []string{"no_cgroups", "denied_host_uids", "denied_host_gids"},
		Logger:     logger,
	})
}

// Default is raw_exec's enablement rule: off unless its plugin config says
// enabled = true.
func Default(_ base.Host, cfg map[string]any, _ bool) (map[string]any, bool) {
	if cfg != nil && cfg["enabled"] == true {
		return cfg, true
	}
	return nil, false
}
