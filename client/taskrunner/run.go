package taskrunner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

var errWaitClosed = errors.New("taskrunner: driver closed the wait channel without a result")

// Run runs the task until it is dead: started (or recovered), waited on,
// restarted per policy, or killed. Call it once, in its own goroutine.
func (tr *TaskRunner) Run() {
	defer close(tr.waitCh)
	defer tr.stopStats() // before waitCh closes: no collector outlives Run
	if tr.IsDead() {
		return
	}
	recovered := tr.recover()
	tr.watchTemplatesIf(recovered) // template_hook.go
	if !recovered {
		tr.emit(structs.NewTaskEvent(structs.TaskSetup, tr.now()), "Building Task Directory", nil)
	}
	for {
		if tr.detached() {
			return
		}
		if !recovered {
			if tr.killed() {
				tr.markDead(false)
				return
			}
			if !tr.waitStartGate() { // lifecycle.go
				return
			}
			if !tr.prestart() || !tr.start() {
				if !tr.afterExit(nil) {
					return
				}
				continue
			}
		}
		recovered = false
		res, stopped := tr.waitOrKill()
		if stopped {
			return
		}
		tr.onTerminated(res)
		if tr.userRestart.pending {
			if !tr.afterUserRestart() {
				return
			}
			continue
		}
		if !tr.afterExit(res) {
			return
		}
	}
}

// recover re-attaches to a task started before a client restart: by its
// persisted handle, or, with no handle (the client's state was lost), by
// asking the driver to discover it (discover.go).
func (tr *TaskRunner) recover() bool {
	h := tr.Handle()
	if h == nil {
		return tr.discover()
	}
	if !tr.reattach(h) {
		tr.logger.Warn("failed to recover task; starting it again")
		tr.mu.Lock()
		tr.handle = nil
		tr.mu.Unlock()
		return false
	}
	tr.logger.Info("re-attached to task", "task_id", h.Config.ID)
	tr.startStats(h.Config.ID)
	return true
}

// start starts the task; it reports whether it runs.
func (tr *TaskRunner) start() bool {
	cfg := tr.taskConfig()
	h, err := tr.cfg.Driver.StartTask(cfg)
	if err != nil {
		ev := structs.NewTaskEvent(structs.TaskDriverFailure, tr.now())
		ev.DriverError = err.Error()
		tr.emit(ev, fmt.Sprintf("failed to start task: %v", err), nil)
		return false
	}
	if h.Config == nil {
		h.Config = cfg
	}
	now := tr.now()
	tr.mu.Lock()
	tr.handle = h
	tr.mu.Unlock()
	tr.emit(structs.NewTaskEvent(structs.TaskStarted, now), "Task started by client", func(s *structs.TaskState) {
		s.State = structs.TaskStateRunning
		s.StartedAt = now
	})
	tr.persist()
	tr.startStats(h.Config.ID)
	return true
}

// taskConfig builds the driver's config for a new instance of the task.
func (tr *TaskRunner) taskConfig() *base.TaskConfig {
	id := fmt.Sprintf("%s/%s/%s", tr.cfg.Alloc.ID, tr.cfg.Task.Name, structs.GenerateUUID()[:8])
	var node *structs.Node
	if tr.cfg.Node != nil {
		node = tr.cfg.Node()
	}
	alloc, netIso := tr.withNetwork(tr.alloc()) // network.go
	cfg := BuildTaskConfig(id, alloc, tr.cfg.Task, tr.cfg.AllocDir, tr.cfg.Region, tr.cfg.Datacenter, node)
	cfg.Network = netIso
	if extra := tr.hookEnvSnapshot(); len(extra) > 0 {
		for k, v := range cfg.Env {
			extra[k] = v // the task's env and NOMAD_* win over a hook's
		}
		cfg.Env = extra
	}
	return cfg
}

// waitOrKill waits for the task to exit; when Kill comes first it stops the
// task, marks it dead and reports stopped; Detach also reports stopped,
// leaving the task alone. When the driver plugin dies it re-attaches to the
// task through the relaunched plugin and waits again.
func (tr *TaskRunner) waitOrKill() (*base.ExitResult, bool) {
	h := tr.Handle()
	for {
		res, ch, cancel := tr.wait(h)
		if res == nil {
			select {
			case r, ok := <-ch:
				res = r
				if !ok || res == nil {
					res = &base.ExitResult{ExitCode: -1, Err: errWaitClosed}
				}
			case <-tr.killCh:
				tr.kill(h.Config.ID, ch)
				cancel()
				return nil, true
			case <-tr.detachCh:
				cancel()
				return nil, true
			case req := <-tr.userRestart.ch:
				if res = tr.restartKill(h, ch, req); res == nil {
					cancel() // a request for an older instance: keep waiting
					continue
				}
			}
		}
		cancel()
		if !pluginDown(res.Err) {
			return res, false
		}
		if tr.reattach(h) {
			tr.logger.Info("re-attached to task after plugin restart")
			tr.kickStats() // the old stream ended with the old plugin
			continue
		}
		switch {
		case tr.detached():
			return nil, true
		case tr.killed():
			tr.kill(h.Config.ID, nil)
			return nil, true
		}
		return res, false
	}
}

// wait calls WaitTask; a failure to wait comes back as an exit result.
func (tr *TaskRunner) wait(h *base.TaskHandle) (*base.ExitResult, <-chan *base.ExitResult, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := tr.cfg.Driver.WaitTask(ctx, h.Config.ID)
	if err != nil {
		return &base.ExitResult{ExitCode: -1, Err: err}, nil, cancel
	}
	return nil, ch, cancel
}

// kill stops a running task and marks it dead (not failed); ch, the
// task's wait channel, is nil when the wait stream was lost.
func (tr *TaskRunner) kill(id string, ch <-chan *base.ExitResult) {
	timeout := tr.cfg.Task.KillTimeout
	if timeout <= 0 {
		timeout = structs.DefaultKillTimeout
	}
	exited, ok := tr.waitShutdownDelay(ch) // lifecycle.go
	if !ok {
		return
	}
	if exited {
		ch = nil
	}
	ev := structs.NewTaskEvent(structs.TaskKilling, tr.now())
	ev.KillTimeout = timeout
	tr.emit(ev, fmt.Sprintf("Sent interrupt. Waiting %v before force killing", timeout), nil)

	killed := structs.NewTaskEvent(structs.TaskKilled, time.Time{})
	if err := tr.cfg.Driver.StopTask(id, timeout, tr.cfg.Task.KillSignal); err != nil {
		killed.KillError = err.Error()
	}
	if ch != nil {
		t := time.NewTimer(timeout + killGrace)
		defer t.Stop()
		select {
		case <-ch:
		case <-t.C:
			tr.logger.Warn("task did not exit after kill timeout")
		}
	}
	if err := tr.cfg.Driver.DestroyTask(id, true); err != nil {
		tr.logger.Warn("destroying task", "error", err)
	}
	killed.Time = tr.now().UnixNano()
	tr.emit(killed, "Task successfully killed", nil)
	tr.markDead(tr.failKill.Load())
}

// onTerminated records an exit and cleans the driver's task up.
func (tr *TaskRunner) onTerminated(res *base.ExitResult) {
	ev := structs.NewTaskEvent(structs.TaskTerminated, tr.now())
	ev.ExitCode, ev.Signal = res.ExitCode, res.Signal
	msg := fmt.Sprintf("Exit Code: %d", res.ExitCode)
	if res.Signal != 0 {
		msg += fmt.Sprintf(", Signal: %d", res.Signal)
	}
	if res.OOMKilled {
		ev.Details["oom_killed"] = "true"
		msg += ", OOM Killed"
	}
	if res.Err != nil {
		tr.logger.Warn("task exit not observed normally", "error", res.Err)
		ev.Details["error"] = res.Err.Error()
		msg += ", Exit Message: " + res.Err.Error()
	}
	tr.emit(ev, msg, nil)
	tr.stopStats()
	if h := tr.Handle(); h != nil {
		if err := tr.cfg.Driver.DestroyTask(h.Config.ID, true); err != nil {
			tr.logger.Debug("destroying exited task", "error", err)
		}
	}
	tr.mu.Lock()
	tr.handle = nil
	tr.mu.Unlock()
}

// afterExit applies the restart policy after an exit (res nil: the start
// failed). It reports whether to run the task again, after the delay.
func (tr *TaskRunner) afterExit(res *base.ExitResult) bool {
	tg := (*structs.TaskGroup)(nil)
	jobType := structs.JobTypeService
	if j := tr.cfg.Alloc.Job; j != nil {
		tg = j.LookupTaskGroup(tr.cfg.Alloc.TaskGroup)
		jobType = j.Type
	}
	policy := tr.restartPolicy(tg) // lifecycle.go
	if tr.killed() {
		tr.markDead(false)
		return false
	}
	now := tr.now()
	if tr.doneOnSuccess(jobType, res) {
		tr.markDead(false)
		return false
	}
	dec, st := NextRestart(policy, jobType, tr.restart, res, true, now)
	tr.restart = st
	if !dec.Restart {
		if dec.Failed {
			ev := structs.NewTaskEvent(structs.TaskNotRestarting, now)
			ev.RestartReason, ev.FailsTask = dec.Reason, true
			tr.emit(ev, dec.Reason, nil)
		}
		tr.markDead(dec.Failed)
		return false
	}
	ev := structs.NewTaskEvent(structs.TaskRestarting, now)
	ev.RestartReason, ev.StartDelay = dec.Reason, int64(dec.Delay)
	tr.emit(ev, fmt.Sprintf("Task restarting in %v", dec.Delay), func(s *structs.TaskState) {
		s.State = structs.TaskStatePending
		s.Restarts++
		s.LastRestart = now
	})
	tr.persist()
	t := time.NewTimer(dec.Delay)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-tr.killCh:
		tr.markDead(false)
		return false
	case <-tr.detachCh:
		return false
	}
}

// markDead sets the terminal state and persists it.
func (tr *TaskRunner) markDead(failed bool) {
	now := tr.now()
	tr.mu.Lock()
	tr.state.State = structs.TaskStateDead
	tr.state.Failed = failed
	tr.state.FinishedAt = now
	tr.handle = nil
	tr.mu.Unlock()
	if tr.cfg.OnUpdate != nil {
		tr.cfg.OnUpdate()
	}
	tr.persist()
}
