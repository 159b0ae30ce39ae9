package taskrunner

import (
	"context"
	"fmt"

	"github.com/nomadish/nomadish/client/template"
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// templateHookName names the template hook in events and in setHookEnv.
const templateHookName = "template"

// templatePrestart renders the task's templates before each start
// (client/template.Manager): the first call builds the manager and, once
// the first render succeeded, starts its watcher, which re-renders on a
// variable change and restarts, signals or runs the change script of the
// task; it stops when Run returns (the task is dead or the runner
// detached). A kill or detach while the render waits for a missing
// variable ends the wait. Run's goroutine only.
func templatePrestart(tr *TaskRunner) (*structs.TaskEvent, error) {
	if len(tr.cfg.Task.Templates) == 0 {
		return nil, nil
	}
	if tr.templates == nil {
		tr.templates = tr.newTemplateManager()
		m := tr.templates
		go func() {
			<-tr.waitCh
			m.Stop()
		}()
	}
	ctx, cancel := tr.hookContext()
	defer cancel()
	if err := tr.templates.Prestart(ctx); err != nil {
		ev := structs.NewTaskEvent(template.EventHookFailed, tr.now())
		ev.Message = fmt.Sprintf("Template failed: %v", err)
		return ev, err
	}
	tr.templates.Watch()
	return nil, nil
}

// watchTemplatesIf, after Run re-attached to a running task (recovered:
// a client restart), renders its templates again in the background
// (writing the files whose content changed, applying no change mode: the
// task keeps running) and then watches them as templatePrestart does.
// Run's goroutine.
func (tr *TaskRunner) watchTemplatesIf(recovered bool) {
	if !recovered || len(tr.cfg.Task.Templates) == 0 || tr.templates != nil {
		return
	}
	m := tr.newTemplateManager()
	tr.templates = m
	ctx, cancel := tr.hookContext()
	rendered := make(chan struct{})
	go func() {
		defer close(rendered)
		if err := m.Prestart(ctx); err != nil {
			tr.logger.Warn("rendering templates after re-attaching", "error", err)
			return
		}
		m.Watch()
	}()
	go func() {
		<-tr.waitCh
		cancel()
		<-rendered
		m.Stop()
	}()
}

// newTemplateManager builds the task's template manager.
func (tr *TaskRunner) newTemplateManager() *template.Manager {
	td := tr.cfg.AllocDir.TaskDir(tr.cfg.Task.Name)
	alloc := tr.alloc()
	return template.New(template.Config{
		Templates: tr.cfg.Task.Templates,
		Dirs:      template.Dirs{TaskDir: td.Dir, AllocDir: tr.cfg.AllocDir.SharedDir},
		Vars:      tr.cfg.Vars,
		Env:       tr.templateEnv,
		Interpolate: func(s string, env map[string]string) string {
			return Interpolate(s, env, tr.nodeValues())
		},
		SetEnv:    func(env map[string]string) { tr.setHookEnv(templateHookName, env) },
		Task:      templateTask{tr},
		Logger:    tr.logger.Named("template"),
		Now:       tr.now,
		Namespace: alloc.Namespace,
		Region:    tr.cfg.Region,
	})
}

// templateEnv is the task's environment as its templates see it.
func (tr *TaskRunner) templateEnv() map[string]string {
	alloc, _ := tr.withNetwork(tr.alloc()) // network.go: NOMAD_ALLOC_IP_*
	return BuildEnv(alloc, tr.cfg.Task, tr.cfg.AllocDir, tr.cfg.Region, tr.cfg.Datacenter, tr.nodeValues())
}

func (tr *TaskRunner) nodeValues() map[string]string {
	var node *structs.Node
	if tr.cfg.Node != nil {
		node = tr.cfg.Node()
	}
	return NodeValues(node, tr.cfg.Region)
}

// templateTask is the task as the template manager acts on it.
type templateTask struct{ tr *TaskRunner }

func (t templateTask) Restart(ctx context.Context) error { return t.tr.Restart(ctx) }
func (t templateTask) Signal(sig string) error           { return t.tr.Signal(sig) }

func (t templateTask) Exec(ctx context.Context, cmd []string) (int, error) {
	res, err := t.tr.Exec(ctx, &base.ExecOptions{Command: cmd})
	if err != nil {
		return -1, err
	}
	if res.Err != nil {
		return res.ExitCode, res.Err
	}
	return res.ExitCode, nil
}

// Kill stops the task for good and marks it failed (ev fails the task),
// as Nomad does when a template fails.
func (t templateTask) Kill(ev *structs.TaskEvent) {
	t.tr.emit(ev, ev.DisplayMessage, nil)
	t.tr.failKill.Store(true)
	t.tr.Kill()
}

func (t templateTask) Event(ev *structs.TaskEvent) { t.tr.emit(ev, ev.DisplayMessage, nil) }
