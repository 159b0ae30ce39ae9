package taskrunner

import (
	"errors"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
)

// reattachFor is how long a runner keeps trying to re-attach to its task
// while the driver plugin is being relaunched.
const reattachFor = 2 * time.Minute

// pluginDown reports whether err says the driver plugin process is gone
// (the task itself may still run).
func pluginDown(err error) bool { return errors.Is(err, base.ErrPluginShutdown) }

// reattach calls RecoverTask on h until it works, fails for a reason other
// than the plugin being down, reattachFor passes, or Kill is called. It
// reports whether the runner is attached again.
func (tr *TaskRunner) reattach(h *TaskHandle) bool {
	deadline := time.Now().Add(reattachFor)
	backoff := 250 * time.Millisecond
	for {
		err := tr.cfg.Driver.RecoverTask(h)
		if err == nil {
			return true
		}
		if !pluginDown(err) || time.Now().After(deadline) {
			tr.logger.Warn("cannot re-attach to task", "error", err)
			return false
		}
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-tr.killCh:
			t.Stop()
			return false
		case <-tr.detachCh:
			t.Stop()
			return false
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}
