package taskrunner

import (
	"errors"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// discover runs before the first start of a task for which the runner
// holds no handle: a new task, or one whose handle went with a corrupt or
// deleted state file while the task kept running. A driver implementing
// base.TaskDiscoverer is asked for a running task of this alloc and name; when
// it finds one, the runner adopts it (state running, handle persisted) and
// reports true, so the task is never started a second time. Any other
// answer means: start the task. While the plugin is down the question is
// retried as a re-attach is, so a relaunching plugin cannot cause a
// duplicate.
func (tr *TaskRunner) discover() bool {
	d, ok := tr.cfg.Driver.(base.TaskDiscoverer)
	if !ok || tr.detached() { // killed: still look, so a found task is stopped
		return false
	}
	cfg := tr.taskConfig()
	var h *base.TaskHandle
	err := tr.whilePluginDown(func() error {
		var err error
		h, err = d.DiscoverTask(cfg)
		return err
	})
	switch {
	case err == nil && (h == nil || h.Config == nil):
		tr.logger.Warn("driver discovered a task but returned no handle; starting the task")
		return false
	case err != nil:
		if !errors.Is(err, base.ErrTaskNotFound) && !errors.Is(err, base.ErrNotSupported) && !errors.Is(err, errRetryEnded) {
			tr.logger.Warn("cannot look for a running copy of the task; starting it", "error", err)
		}
		return false
	}
	now := tr.now()
	tr.mu.Lock()
	tr.handle = h
	tr.mu.Unlock()
	ev := structs.NewTaskEvent(structs.TaskStarted, now)
	ev.Details["rediscovered"] = "true"
	tr.emit(ev, "Task re-discovered by client: it kept running while the client state was lost",
		func(s *structs.TaskState) {
			s.State = structs.TaskStateRunning
			if s.StartedAt.IsZero() {
				s.StartedAt = now
			}
		})
	tr.persist()
	tr.logger.Info("re-discovered running task; not starting a second copy", "task_id", h.Config.ID)
	tr.startStats(h.Config.ID)
	return true
}
