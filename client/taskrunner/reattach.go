package taskrunner

import (
	"errors"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
)

var errRetryEnded = errors.New("taskrunner: the task was killed or detached while its plugin was down")

// reattachFor is how long a runner keeps trying to re-attach to its task
// while the driver plugin is being relaunched.
const reattachFor = 2 * time.Minute

// pluginDown reports whether err says the driver plugin process is gone
// (the task itself may still run).
func pluginDown(err error) bool { return errors.Is(err, base.ErrPluginShutdown) }

// reattach calls RecoverTask on h until it works, fails for a reason other
// than the plugin being down, reattachFor passes, or Kill is called. It
// reports whether the runner is attached again.
func (tr *TaskRunner) reattach(h *base.TaskHandle) bool {
	err := tr.whilePluginDown(func() error { return tr.cfg.Driver.RecoverTask(h) })
	if err != nil {
		tr.logger.Warn("cannot re-attach to task", "error", err)
		return false
	}
	return true
}

// whilePluginDown calls fn until it returns anything but a plugin-down
// error, reattachFor passes, or Kill or Detach is called (errRetryEnded);
// it returns fn's last error.
func (tr *TaskRunner) whilePluginDown(fn func() error) error {
	deadline := time.Now().Add(reattachFor)
	backoff := 250 * time.Millisecond
	for {
		err := fn()
		if err == nil || !pluginDown(err) || time.Now().After(deadline) {
			return err
		}
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-tr.killCh:
			t.Stop()
			return errRetryEnded
		case <-tr.detachCh:
			t.Stop()
			return errRetryEnded
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}
