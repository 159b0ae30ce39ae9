package drivers

import (
	"os"
	"strconv"
	"time"

	"github.com/hashicorp/go-hclog"
)

// parentPollInterval is how often a plugin checks that its client lives.
const parentPollInterval = 500 * time.Millisecond

// parentPIDEnv carries the launching client's pid to the plugin.
const parentPIDEnv = "NOMADISH_PLUGIN_PARENT_PID"

// watchParent exits the plugin process when the client that launched it
// dies (the plugin is re-parented, so its parent pid changes). A client that
// is killed cannot ask its plugins to stop; without this they would linger
// forever. Tasks are in their own process groups and outlive the plugin; the
// restarted client launches a new plugin and recovers them with RecoverTask.
//
// The client passes its pid in parentPIDEnv, so a client that died before
// the plugin started is noticed too; without it the plugin's first parent
// is the one watched.
func watchParent(logger hclog.Logger) {
	parent := os.Getppid()
	if p, err := strconv.Atoi(os.Getenv(parentPIDEnv)); err == nil && p > 0 {
		parent = p
	}
	go func() {
		for range time.Tick(parentPollInterval) {
			if os.Getppid() != parent {
				logger.Info("client process is gone; plugin exiting", "parent", parent)
				os.Exit(0)
			}
		}
	}()
}
