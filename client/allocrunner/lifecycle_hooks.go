package allocrunner

import (
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/structs"
)

// The task lifecycle (Nomad's lifecycle block): prestart tasks start
// first; main tasks (no lifecycle block) once every prestart task that is
// not a sidecar exited 0 and every prestart sidecar started; poststart
// tasks once every main task started; poststop tasks once every other
// task is dead. Sidecars and the other lifecycle tasks still running are
// killed once every main task is dead; a failed task, or a dead leader,
// kills every task but the poststop ones, which then run.

// Gate reasons: the "Waiting" event of a task held back.
const (
	waitPrestart  = "Waiting for prestart tasks to complete"
	waitMain      = "Waiting for main tasks to start"
	waitOtherStop = "Waiting for the other tasks to stop"
)

// phases says which lifecycle gates may open.
type phases struct {
	Main, Poststart, Poststop bool
}

// lifecyclePhases decides the gates from the tasks' states (a missing state
// counts as pending). Pure; a gate once open stays open (gates.open).
func lifecyclePhases(tasks []*structs.Task, states map[string]*structs.TaskState) phases {
	ph := phases{Main: true, Poststart: true, Poststop: true}
	for _, t := range tasks {
		s := states[t.Name]
		if s == nil {
			s = &structs.TaskState{State: structs.TaskStatePending}
		}
		dead, started := s.State == structs.TaskStateDead, !s.StartedAt.IsZero()
		switch {
		case t.IsHook(structs.TaskLifecycleHookPrestart) && t.IsSidecar():
			ph.Main = ph.Main && started
		case t.IsHook(structs.TaskLifecycleHookPrestart):
			ph.Main = ph.Main && dead && !s.Failed
		case t.IsMain():
			ph.Poststart = ph.Poststart && started
		}
		if !t.IsHook(structs.TaskLifecycleHookPoststop) {
			ph.Poststop = ph.Poststop && dead
		}
	}
	return ph
}

// killDecision is why the alloc runner kills the tasks still alive but
// the poststop ones: the event type and message each of them gets. The
// zero value kills nothing.
type killDecision struct {
	Type, Message string
}

// lifecycleKill decides, from the tasks' states, whether the remaining
// tasks must be killed: a task failed (Nomad: "Sibling Task Failed"), the
// leader is dead, or every main task is dead (sidecars and other lifecycle
// tasks are then stopped). Pure.
func lifecycleKill(tasks []*structs.Task, states map[string]*structs.TaskState) killDecision {
	mains, mainsDead := 0, 0
	var failed []string
	for _, t := range tasks {
		s := states[t.Name]
		dead := s != nil && s.State == structs.TaskStateDead
		if dead && s.Failed && !t.IsHook(structs.TaskLifecycleHookPoststop) {
			failed = append(failed, t.Name)
		}
		if t.IsMain() {
			mains++
			if dead {
				mainsDead++
			}
		}
	}
	if len(failed) > 0 {
		sort.Strings(failed)
		return killDecision{structs.TaskSiblingFailed, fmt.Sprintf("Task %q failed", failed[0])}
	}
	for _, t := range tasks {
		if s := states[t.Name]; t.Leader && s != nil && s.State == structs.TaskStateDead {
			return killDecision{structs.TaskLeaderDead, fmt.Sprintf("Leader task %q is dead", t.Name)}
		}
	}
	if mains > 0 && mainsDead == mains {
		return killDecision{structs.TaskMainDead, "Main tasks in the group died"}
	}
	return killDecision{}
}

// gates holds the lifecycle gates of one allocation; each is closed once.
type gates struct {
	main, poststart, poststop         chan struct{}
	mainOnce, poststartOnce, stopOnce sync.Once
}

func newGates() *gates {
	return &gates{main: make(chan struct{}), poststart: make(chan struct{}), poststop: make(chan struct{})}
}

// gateFor returns the start gate of task (nil for prestart tasks: they
// start at once).
func (g *gates) gateFor(t *structs.Task) *taskrunner.StartGate {
	switch {
	case t.IsMain():
		return &taskrunner.StartGate{Ch: g.main, Reason: waitPrestart}
	case t.IsHook(structs.TaskLifecycleHookPoststart):
		return &taskrunner.StartGate{Ch: g.poststart, Reason: waitMain}
	case t.IsHook(structs.TaskLifecycleHookPoststop):
		return &taskrunner.StartGate{Ch: g.poststop, Reason: waitOtherStop}
	}
	return nil
}

// open closes the gates ph allows. Any goroutine.
func (g *gates) open(ph phases) {
	if ph.Main {
		g.mainOnce.Do(func() { close(g.main) })
	}
	if ph.Poststart {
		g.poststartOnce.Do(func() { close(g.poststart) })
	}
	if ph.Poststop {
		g.stopOnce.Do(func() { close(g.poststop) })
	}
}

// advanceLifecycle opens the gates the task states allow and kills what
// must stop (lifecycleKill), each live task once with the decision's
// event. Called from task runner goroutines after a state change and by
// run.
func (ar *AllocRunner) advanceLifecycle() {
	tg := ar.currentGroup()
	if tg == nil {
		return
	}
	states := ar.TaskStates()
	ar.gates.open(lifecyclePhases(tg.Tasks, states))
	kd := lifecycleKill(tg.Tasks, states)
	if kd.Type == "" {
		return
	}
	ar.killLive(kd, func(t *structs.Task) bool { return !t.IsHook(structs.TaskLifecycleHookPoststop) })
}

// killLive kills the live runners whose task match selects, recording the
// decision's event on each the first time it kills it.
func (ar *AllocRunner) killLive(kd killDecision, match func(*structs.Task) bool) {
	ar.mu.Lock()
	var kill []*taskrunner.TaskRunner
	for name, tr := range ar.tasks {
		if ar.lcKilled[name] || tr.IsDead() || !match(tr.Task()) {
			continue
		}
		ar.lcKilled[name] = true
		kill = append(kill, tr)
	}
	ar.mu.Unlock()
	for _, tr := range kill {
		if kd.Type != "" {
			tr.Event(kd.Type, kd.Message)
		}
		tr.Kill()
	}
}

// stop serves a desired stop (its own goroutine): it waits the group's
// shutdown_delay, kills the leader and waits for it, kills the other main
// tasks and waits for them, then every task but the poststop ones, which
// run once the rest is dead. Kill or Destroy meanwhile cut it short.
func (ar *AllocRunner) stop() {
	tg := ar.currentGroup()
	if d := tg.GroupShutdownDelay(); d > 0 {
		ar.eachLive(func(tr *taskrunner.TaskRunner) {
			if tr.Task().IsMain() {
				tr.Event(structs.TaskWaitingShuttingDownDelay, fmt.Sprintf("Waiting for the group's shutdown_delay of %v before killing the tasks.", d))
			}
		})
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ar.waitCh:
		case <-ar.killCh:
		}
		t.Stop()
	}
	isLeader := func(t *structs.Task) bool { return t.Leader }
	isMain := func(t *structs.Task) bool { return t.IsMain() }
	notPoststop := func(t *structs.Task) bool { return !t.IsHook(structs.TaskLifecycleHookPoststop) }
	for _, match := range []func(*structs.Task) bool{isLeader, isMain, notPoststop} {
		ar.killLive(killDecision{}, match)
		ar.eachRunner(func(tr *taskrunner.TaskRunner) {
			if match(tr.Task()) {
				<-tr.WaitCh()
			}
		})
	}
}

// eachLive calls f for each runner whose task is not dead.
func (ar *AllocRunner) eachLive(f func(*taskrunner.TaskRunner)) {
	ar.eachRunner(func(tr *taskrunner.TaskRunner) {
		if !tr.IsDead() {
			f(tr)
		}
	})
}

// eachRunner calls f for each runner, outside the lock.
func (ar *AllocRunner) eachRunner(f func(*taskrunner.TaskRunner)) {
	ar.mu.Lock()
	runners := make([]*taskrunner.TaskRunner, 0, len(ar.tasks))
	for _, tr := range ar.tasks {
		runners = append(runners, tr)
	}
	ar.mu.Unlock()
	for _, tr := range runners {
		f(tr)
	}
}

// healthStates returns the task states a deployment's health is judged
// on, and how many tasks that is (as Nomad's health tracker): poststop
// tasks are left out (they stay pending until the end), and so are
// prestart and poststart tasks that are not sidecars once they exited 0.
// The caller owns the map.
func healthStates(tg *structs.TaskGroup, states map[string]*structs.TaskState) (map[string]*structs.TaskState, int) {
	if tg == nil {
		return states, len(states)
	}
	out := make(map[string]*structs.TaskState, len(states))
	n := 0
	for _, t := range tg.Tasks {
		s := states[t.Name]
		done := s != nil && s.State == structs.TaskStateDead && !s.Failed
		switch {
		case t.IsHook(structs.TaskLifecycleHookPoststop):
			continue
		case t.Lifecycle != nil && !t.IsSidecar() && done:
			continue
		}
		n++
		if s != nil {
			out[t.Name] = s
		}
	}
	return out, n
}

// currentGroup is group() for callers that do not hold mu.
func (ar *AllocRunner) currentGroup() *structs.TaskGroup {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	return ar.group()
}

// anyStarted reports whether a task of runners ever started (a restored
// allocation).
func anyStarted(runners []*taskrunner.TaskRunner) bool {
	for _, tr := range runners {
		if !tr.State().StartedAt.IsZero() {
			return true
		}
	}
	return false
}
