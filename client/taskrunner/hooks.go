package taskrunner

import (
	"context"
	"fmt"
	"maps"

	"github.com/nomadish/nomadish/structs"
)

// A prestartHook prepares a task before each start: it fetches what the
// task needs into its directories (artifacts, templates, the dispatch
// payload) and may add environment variables (setHookEnv). An error fails
// this start: the runner records the hook's event and the restart policy
// decides what happens next, as for a driver that cannot start the task.
type prestartHook struct {
	name string
	// run prepares the task; it returns the task event describing a
	// failure (nil: a TaskSetupFailure naming the hook) and the error.
	run func(tr *TaskRunner) (*structs.TaskEvent, error)
}

// prestartHooks run in this order before every start. A new hook is its
// own file and one line here.
var prestartHooks = []prestartHook{
	artifactHook, // artifact_hook.go: first, as in Nomad
	volumesHook,  // volumes.go
	payloadHook,  // payload_hook.go
	{name: templateHookName, run: templatePrestart}, // template_hook.go: after artifacts (a source may be one)
}

// prestart runs the prestart hooks in order; it reports whether the task
// may start, after recording the failing hook's event.
func (tr *TaskRunner) prestart() bool {
	for _, h := range prestartHooks {
		ev, err := h.run(tr)
		if err == nil {
			continue
		}
		if ev == nil {
			ev = structs.NewTaskEvent(structs.TaskSetupFailure, tr.now())
		}
		msg := fmt.Sprintf("%s: %v", h.name, err)
		if ev.Message == "" {
			ev.Message = msg
		}
		tr.logger.Warn("prestart hook failed", "hook", h.name, "error", err)
		tr.emit(ev, msg, nil)
		return false
	}
	return true
}

// setHookEnv sets environment variables a hook derived (a template with
// env = true); they are added to the task's environment at each start,
// after the task's own env and before Nomad's NOMAD_* variables.
func (tr *TaskRunner) setHookEnv(name string, env map[string]string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.hookEnv == nil {
		tr.hookEnv = map[string]map[string]string{}
	}
	tr.hookEnv[name] = maps.Clone(env)
}

// hookEnvSnapshot returns the hooks' variables merged, in hook order.
func (tr *TaskRunner) hookEnvSnapshot() map[string]string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	out := map[string]string{}
	for _, h := range prestartHooks {
		maps.Copy(out, tr.hookEnv[h.name])
	}
	return out
}

// hookContext returns a context that ends when the runner is killed or
// detached, so a hook that waits (a download, a missing variable) never
// holds up a stop.
func (tr *TaskRunner) hookContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-tr.killCh:
		case <-tr.detachCh:
		case <-ctx.Done():
		}
		cancel()
	}()
	return ctx, cancel
}
