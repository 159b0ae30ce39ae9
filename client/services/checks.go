package services

import (
	"context"
	"time"

	"github.com/nomadish/nomadish/client/checks"
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// desired returns the registrations and checks of what snap says runs:
// the group's services while the group's tasks all run, each task's
// services while it runs; nothing once the allocation is terminal.
// Services that cannot be built are logged and left out.
func (h *Hook) desired(snap snapshot) desired {
	want := desired{regs: map[string]*structs.ServiceRegistration{}, specs: map[string]checks.Spec{},
		started: map[string]time.Time{}}
	tg := group(snap.alloc)
	if tg == nil || snap.alloc.TerminalStatus() {
		return want
	}
	var node *structs.Node
	if h.cfg.Node != nil {
		node = h.cfg.Node()
	}
	add := func(owner, task string, svcs []*structs.Service) {
		for _, s := range svcs {
			reg, err := Registration(snap.alloc, node, owner, s)
			if err != nil {
				h.logger.Warn("service not registered", "error", err)
				continue
			}
			want.regs[reg.ID] = reg
			for _, c := range s.Checks {
				spec, err := h.spec(snap, node, task, s, c, reg)
				if err != nil {
					h.logger.Warn("check not run", "error", err)
					continue
				}
				want.specs[spec.ID] = spec
				want.started[spec.ID] = instance(snap, task)
			}
		}
	}
	if snap.groupRunning {
		add(GroupOwner(tg.Name), "", tg.Services)
	}
	for _, t := range tg.Tasks {
		if _, ok := snap.running[t.Name]; ok {
			add(t.Name, t.Name, t.Services)
		}
	}
	return want
}

// spec builds the run of check c of service s (owned by task, "" for the
// group) against reg's address. A script check execs, and a check_restart
// restarts, the check's task, else the service's.
func (h *Hook) spec(snap snapshot, node *structs.Node, task string, s *structs.Service, c *structs.ServiceCheck, reg *structs.ServiceRegistration) (checks.Spec, error) {
	target, err := CheckTarget(snap.alloc, node, s, c, reg)
	if err != nil {
		return checks.Spec{}, err
	}
	inTask := checkTask(task, s, c)
	var ex checks.Execer
	if t := h.task(inTask); t != nil {
		ex = execer{t}
	}
	checker, err := checks.New(c, target, ex)
	if err != nil {
		return checks.Spec{}, err
	}
	spec := checks.Spec{ID: checks.CheckID(snap.alloc.ID, snap.alloc.TaskGroup, task, s.Name, c), Check: c,
		Group: snap.alloc.TaskGroup, Task: task, Service: s.Name, Checker: checker, RestartTask: inTask}
	if started, ok := snap.running[inTask]; ok {
		spec.Restart = checks.NewRestartWatch(c.CheckRestart, started)
	}
	return spec, nil
}

// instance is when the run of a check owned by task ("" : the group)
// began: its task's start, or the latest start of the group's tasks. A
// check whose instance changed starts over (its grace, its tracker).
func instance(snap snapshot, task string) time.Time {
	if task != "" {
		return snap.running[task]
	}
	var last time.Time
	for _, t := range snap.running {
		if t.After(last) {
			last = t
		}
	}
	return last
}

func checkTask(task string, s *structs.Service, c *structs.ServiceCheck) string {
	switch {
	case c.TaskName != "":
		return c.TaskName
	case task != "":
		return task
	}
	return s.TaskName
}

func (h *Hook) task(name string) Task {
	if name == "" || h.cfg.Task == nil {
		return nil
	}
	return h.cfg.Task(name)
}

// onResult hears each check result (a check's goroutine): it wakes the
// health watch and carries out a check_restart.
func (h *Hook) onResult(ctx context.Context, s checks.Spec, status string, restart bool) {
	if h.cfg.OnCheck != nil {
		h.cfg.OnCheck()
	}
	if !restart {
		return
	}
	t := h.task(s.RestartTask)
	if t == nil {
		h.logger.Warn("check_restart: no task to restart", "check", s.Check.Name)
		return
	}
	h.logger.Info("restarting task: check unhealthy", "task", s.RestartTask, "check", s.Check.Name, "status", status)
	if err := t.RestartForCheck(ctx, s.Check.Name); err != nil {
		h.logger.Warn("check_restart failed", "task", s.RestartTask, "check", s.Check.Name, "error", err)
	}
}

// Health returns every check of the allocation's group and tasks as
// deployment health sees it: a check not running now (its task is not
// running) is pending.
func (h *Hook) Health() []checks.Health {
	h.mu.Lock()
	alloc := h.snap.alloc
	h.mu.Unlock()
	tg := group(alloc)
	if tg == nil {
		return nil
	}
	running := map[string]bool{}
	for _, id := range h.runner.Running() {
		running[id] = true
	}
	var out []checks.Health
	add := func(task string, svcs []*structs.Service) {
		for _, s := range svcs {
			for _, c := range s.Checks {
				id := checks.CheckID(alloc.ID, tg.Name, task, s.Name, c)
				hl := checks.Health{ID: id, OnUpdate: onUpdate(s, c), Status: structs.CheckPending}
				if st, since, ok := h.runner.Status(id); ok && running[id] {
					hl.Status, hl.Since = st, since
				}
				out = append(out, hl)
			}
		}
	}
	add("", tg.Services)
	for _, t := range tg.Tasks {
		add(t.Name, t.Services)
	}
	return out
}

// onUpdate is a check's on_update, else its service's (Nomad's default
// require_healthy).
func onUpdate(s *structs.Service, c *structs.ServiceCheck) string {
	switch {
	case c.OnUpdate != "":
		return c.OnUpdate
	case s.OnUpdate != "":
		return s.OnUpdate
	}
	return structs.OnUpdateRequireHealthy
}

// execer runs a script check's command through the task's driver.
type execer struct{ t Task }

func (e execer) Exec(ctx context.Context, command []string, out *checks.LimitedBuffer) (int, error) {
	res, err := e.t.Exec(ctx, &base.ExecOptions{Command: command, Stdout: out, Stderr: out})
	if err != nil {
		return -1, err
	}
	if res.Err != nil {
		return -1, res.Err
	}
	return res.ExitCode, nil
}
