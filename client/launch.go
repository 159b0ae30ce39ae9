package client

import (
	"fmt"
	"os"

	"github.com/nomadish/nomadish/client/pluginmgr"
	"github.com/nomadish/nomadish/drivers"
	"github.com/nomadish/nomadish/drivers/base"
)

// defaultLauncher starts driver plugins as "<PluginExecutable> plugin <name>"
// subprocesses (go-plugin over gRPC), one set per client.
func (c *Client) defaultLauncher() pluginmgr.LaunchFunc {
	return func(name string) (pluginmgr.Plugin, func(), error) {
		exe := c.cfg.PluginExecutable
		if exe == "" {
			var err error
			if exe, err = os.Executable(); err != nil {
				return nil, nil, fmt.Errorf("finding the plugin executable: %w", err)
			}
		}
		d, kill, err := drivers.Launch(exe, name, c.cfg.Logger)
		if err != nil {
			return nil, nil, err
		}
		return d, kill, nil
	}
}

// base.Driver is a plugin as the manager needs it.
var _ pluginmgr.Plugin = base.Driver(nil)
