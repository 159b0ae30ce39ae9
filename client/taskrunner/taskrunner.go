// Package taskrunner runs one task of an allocation through its driver:
// start, wait, restart per the group's restart policy, kill, and re-attach
// after a client restart (RecoverTask on the persisted handle).
package taskrunner

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/client/allocdir"
	"github.com/nomadish/nomadish/client/getter"
	"github.com/nomadish/nomadish/client/template"
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// maxEvents is how many events a task state keeps (Nomad keeps 10).
const maxEvents = 10

// killGrace is how long after StopTask's timeout the runner waits for the
// exit before giving up on it.
const killGrace = 5 * time.Second

// StateDB persists a task's handle and state (client/state.DB satisfies it).
type StateDB interface {
	PutTaskState(allocID, task string, v any) error
	GetTaskState(allocID, task string, out any) (bool, error)
}

// Config is what a task runner needs. Alloc, Task, AllocDir and Driver are required.
type Config struct {
	Alloc      *structs.Allocation
	Task       *structs.Task
	AllocDir   *allocdir.AllocDir
	Driver     Driver
	State      StateDB // nil: nothing persisted
	Region     string
	Datacenter string
	// Node returns the client's node (a copy the runner may keep) for
	// ${attr.*}, ${meta.*} and ${node.*} in the task's config, env and
	// user; called at each start. nil: those references stay as they are.
	Node   func() *structs.Node
	Logger hclog.Logger
	// OnUpdate is called from the runner's goroutine after the task state
	// changed; it must not block.
	OnUpdate func()
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Artifacts is the client's artifact block (nil: getter.DefaultConfig()).
	Artifacts *getter.Config
	// Vars reads the variables the task's templates may read (nomadVar);
	// nil: templates using them fail (template_hook.go).
	Vars template.VarReader
	// StartGate, when set, holds the task's first start back until its
	// lifecycle phase is due (lifecycle.go).
	StartGate *StartGate
}

// persisted is what the state db holds per task.
type persisted struct {
	Handle  *base.TaskHandle
	State   *structs.TaskState
	Restart RestartState
	// Artifacts are the keys of the artifacts fetched (artifact_hook.go).
	Artifacts []string
}

// TaskRunner runs one task. Run is its one goroutine; the other methods may
// be called from any goroutine.
type TaskRunner struct {
	cfg    Config
	logger hclog.Logger
	now    func() time.Time

	mu      sync.Mutex // guards the fields below
	state   *structs.TaskState
	handle  *base.TaskHandle
	restart RestartState
	updated *structs.Allocation          // newest alloc from Update (update.go), nil: cfg.Alloc
	hookEnv map[string]map[string]string // per prestart hook, its env additions (hooks.go)
	network groupNetwork                 // the group's namespace (network.go)

	artifacts artifactState     // fetched artifacts, guarded by mu (artifact_hook.go)
	templates *template.Manager // built by the template hook on Run's goroutine (template_hook.go)
	failKill  atomic.Bool       // set before Kill when the kill fails the task (a template failure)

	stats       statsTracker // latest usage sample and its collector (stats.go)
	userRestart userRestart  // alloc restart requests to Run (restart_user.go)

	killOnce   sync.Once
	killCh     chan struct{} // closed by Kill
	detachOnce sync.Once
	detachCh   chan struct{} // closed by Detach
	waitCh     chan struct{} // closed when Run returns
}

// New returns a task runner. If the state db holds the task's state (a
// client restart), the runner restores it and Run re-attaches to the task
// instead of starting it.
func New(cfg Config) (*TaskRunner, error) {
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	tr := &TaskRunner{
		cfg:      cfg,
		logger:   cfg.Logger.Named("task_runner").With("alloc_id", cfg.Alloc.ID, "task", cfg.Task.Name),
		now:      cfg.Now,
		killCh:   make(chan struct{}),
		detachCh: make(chan struct{}),
		waitCh:   make(chan struct{}),
	}
	tr.userRestart.ch = make(chan restartReq)
	if tr.now == nil {
		tr.now = time.Now
	}
	if cfg.State != nil {
		var p persisted
		ok, err := cfg.State.GetTaskState(cfg.Alloc.ID, cfg.Task.Name, &p)
		if err != nil {
			return nil, err
		}
		if ok && p.State != nil {
			tr.state, tr.handle, tr.restart = p.State, p.Handle, p.Restart
			tr.artifacts = restoreArtifacts(p.Artifacts)
			return tr, nil
		}
	}
	tr.state = &structs.TaskState{State: structs.TaskStatePending}
	tr.appendEvent(structs.NewTaskEvent(structs.TaskReceived, tr.now()), "Task received by client")
	return tr, nil
}

// State returns a copy of the task's state.
func (tr *TaskRunner) State() *structs.TaskState {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	s := *tr.state
	s.Events = append([]*structs.TaskEvent(nil), tr.state.Events...)
	return &s
}

// Handle returns the current driver handle (nil when not running).
func (tr *TaskRunner) Handle() *base.TaskHandle {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.handle
}

// Kill asks the runner to stop the task (kill signal, then KillTimeout,
// then force) and not restart it. It does not wait: see WaitCh.
func (tr *TaskRunner) Kill() {
	tr.killOnce.Do(func() { close(tr.killCh) })
}

// Detach makes Run return without touching the task, which keeps running:
// the client is shutting down and a later runner will re-attach to it.
func (tr *TaskRunner) Detach() {
	tr.detachOnce.Do(func() { close(tr.detachCh) })
}

func (tr *TaskRunner) detached() bool {
	select {
	case <-tr.detachCh:
		return true
	default:
		return false
	}
}

// WaitCh is closed when Run has returned: the task is dead, or the runner
// was detached.
func (tr *TaskRunner) WaitCh() <-chan struct{} { return tr.waitCh }

// IsDead reports whether the task is dead.
func (tr *TaskRunner) IsDead() bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.state.State == structs.TaskStateDead
}

func (tr *TaskRunner) killed() bool {
	select {
	case <-tr.killCh:
		return true
	default:
		return false
	}
}

// appendEvent adds ev to the state (caller need not hold mu: it takes it).
func (tr *TaskRunner) appendEvent(ev *structs.TaskEvent, msg string) {
	ev.DisplayMessage = msg
	if ev.Message == "" {
		ev.Message = msg
	}
	tr.mu.Lock()
	tr.state.Events = append(tr.state.Events, ev)
	if n := len(tr.state.Events); n > maxEvents {
		tr.state.Events = tr.state.Events[n-maxEvents:]
	}
	tr.mu.Unlock()
}

// emit records an event, applies mutate to the state under the lock, and
// notifies the owner.
func (tr *TaskRunner) emit(ev *structs.TaskEvent, msg string, mutate func(s *structs.TaskState)) {
	tr.appendEvent(ev, msg)
	if mutate != nil {
		tr.mu.Lock()
		mutate(tr.state)
		tr.mu.Unlock()
	}
	if tr.cfg.OnUpdate != nil {
		tr.cfg.OnUpdate()
	}
}

// persist writes the handle, state and restart tracker to the state db.
func (tr *TaskRunner) persist() {
	if tr.cfg.State == nil {
		return
	}
	tr.mu.Lock()
	p := persisted{Handle: tr.handle, State: tr.state, Restart: tr.restart}
	p.Artifacts = tr.artifacts.keys()
	err := tr.cfg.State.PutTaskState(tr.cfg.Alloc.ID, tr.cfg.Task.Name, &p)
	tr.mu.Unlock()
	if err != nil {
		tr.logger.Error("persisting task state", "error", err)
	}
}
