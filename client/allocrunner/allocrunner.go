// Package allocrunner runs one allocation on the client: it builds the alloc
// dir, runs a task runner per task, derives the allocation's client status
// from the task states, and stops or destroys the allocation.
package allocrunner

import (
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/client/allocdir"
	"github.com/nomadish/nomadish/client/getter"
	"github.com/nomadish/nomadish/client/network"
	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/client/template"
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// StateDB persists allocations and task states (client/state.DB satisfies it).
type StateDB interface {
	taskrunner.StateDB
	PutAlloc(a *structs.Allocation) error
	DeleteAlloc(allocID string) error
}

// DriverSource returns the driver for a task's driver name.
type DriverSource func(name string) (taskrunner.Driver, error)

// Config is what an alloc runner needs. Alloc, AllocRoot and Drivers are required.
type Config struct {
	Alloc      *structs.Allocation
	AllocRoot  string // <data_dir>/alloc
	Drivers    DriverSource
	State      StateDB // nil: nothing persisted
	Region     string
	Datacenter string
	// Node returns the client's node for the tasks' interpolation
	// (taskrunner.Config.Node); nil: no node values.
	Node   func() *structs.Node
	Logger hclog.Logger
	// OnUpdate receives the allocation's client-side update (ID, NodeID,
	// ClientStatus, ClientDescription, TaskStates) each time a task's state
	// changes. It is called from task runner goroutines and must not block.
	OnUpdate func(update *structs.Allocation)
	// Artifacts is the client's artifact block (taskrunner.Config.Artifacts).
	Artifacts *getter.Config
	// Previous is the runner of the allocation this one replaces when it
	// is on this node (nil otherwise): sticky.go moves its data over.
	Previous *AllocRunner
	// FetchPrevious restores into dir the migrating data of the previous
	// allocation when it ran on another node (nil: not fetched; sticky.go).
	FetchPrevious func(prevAllocID string, dir *allocdir.AllocDir, tasks []string, maxBytes int64) error
	// Vars returns the variable reader of one task (its workload identity's
	// paths) for its templates; nil: templates cannot read variables.
	Vars func(allocID, task string) template.VarReader
	// Network sets up the group's namespace for bridge, none and cni
	// modes (network_hook.go; nil: such groups fail). NetworkManagerFor
	// returns the driver's base.NetworkManager when the named driver
	// creates namespaces itself (docker); nil: none does.
	Network           Networker
	NetworkManagerFor func(driver string) (base.NetworkManager, bool)
	// Services builds the service hook (services.go); nil: services are
	// neither registered nor checked.
	Services ServicesFactory
}

// AllocRunner runs one allocation. Methods are safe from any goroutine.
type AllocRunner struct {
	cfg    Config
	logger hclog.Logger
	dir    *allocdir.AllocDir

	mu    sync.Mutex // guards alloc, tasks, failedTasks and detached
	alloc *structs.Allocation
	// detached is set by Shutdown: updates are no longer reported.
	detached bool
	tasks    map[string]*taskrunner.TaskRunner
	// failedTasks are tasks that could not get a runner (unknown driver).
	failedTasks map[string]*structs.TaskState

	runOnce sync.Once
	waitCh  chan struct{} // closed when every task is dead

	// healthFor is the deployment whose health is watched, health the
	// verdict (nil until decided); guarded by mu (health.go).
	healthFor string
	health    *structs.AllocDeploymentStatus
	healthCh  chan struct{} // cap 1: a task state changed

	prevMoved bool            // sticky.go: the previous alloc's data was taken; run's goroutine only
	gates     *gates          // lifecycle start gates (lifecycle_hooks.go)
	lcKilled  map[string]bool // tasks killed by the lifecycle rules; guarded by mu
	stopOnce  sync.Once       // the desired stop runs once (lifecycle_hooks.go)
	killOnce  sync.Once
	killCh    chan struct{}   // closed by Kill: cuts a shutdown delay short
	started   bool            // Run started the task runners; guarded by mu
	netRec    *network.Record // the group network (network_hook.go); guarded by mu
	svc       Services        // the service hook (services.go); nil without services; set by New
}

// New returns an alloc runner; it restores its tasks' states from cfg.State
// when the client restarted. It starts nothing: call Run.
func New(cfg Config) (*AllocRunner, error) {
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	ar := &AllocRunner{
		cfg:         cfg,
		logger:      cfg.Logger.Named("alloc_runner").With("alloc_id", cfg.Alloc.ID),
		dir:         allocdir.New(cfg.AllocRoot, cfg.Alloc.ID),
		alloc:       cfg.Alloc,
		tasks:       map[string]*taskrunner.TaskRunner{},
		failedTasks: map[string]*structs.TaskState{},
		waitCh:      make(chan struct{}),
		healthCh:    make(chan struct{}, 1),
		gates:       newGates(),
		lcKilled:    map[string]bool{},
		killCh:      make(chan struct{}),
	}
	tg := ar.group()
	if tg == nil {
		return nil, fmt.Errorf("alloc %s: task group %q not in its job", cfg.Alloc.ID, cfg.Alloc.TaskGroup)
	}
	for _, task := range tg.Tasks {
		if err := ar.addTask(task); err != nil {
			return nil, err
		}
	}
	if cfg.Services != nil {
		ar.svc = cfg.Services(cfg.Alloc, ar.taskControl, ar.notifyHealth)
	}
	return ar, nil
}

func (ar *AllocRunner) group() *structs.TaskGroup {
	if ar.alloc.Job == nil {
		return nil
	}
	return ar.alloc.Job.LookupTaskGroup(ar.alloc.TaskGroup)
}

// addTask creates the task's runner, or records it as failed when its
// driver is missing.
func (ar *AllocRunner) addTask(task *structs.Task) error {
	drv, err := ar.cfg.Drivers(task.Driver)
	if err != nil {
		now := time.Now()
		ev := structs.NewTaskEvent(structs.TaskDriverFailure, now)
		ev.DriverError = err.Error()
		ev.Message = fmt.Sprintf("failed to get driver %q: %v", task.Driver, err)
		ev.DisplayMessage = ev.Message
		ar.failedTasks[task.Name] = &structs.TaskState{State: structs.TaskStateDead, Failed: true, FinishedAt: now,
			Events: []*structs.TaskEvent{ev}}
		return nil
	}
	tr, err := taskrunner.New(taskrunner.Config{
		Alloc: ar.alloc, Task: task, AllocDir: ar.dir, Driver: drv, State: ar.cfg.State,
		Region: ar.cfg.Region, Datacenter: ar.cfg.Datacenter, Node: ar.cfg.Node, Logger: ar.cfg.Logger,
		OnUpdate: ar.taskStateUpdated, StartGate: ar.gates.gateFor(task), Vars: ar.varsFor(task.Name),
		// the client's artifact limits (client/getter)
		Artifacts: ar.cfg.Artifacts,
	})
	if err != nil {
		return fmt.Errorf("creating task runner %q: %w", task.Name, err)
	}
	ar.tasks[task.Name] = tr
	return nil
}

// Run builds the alloc dir and starts the task runners; it returns at once.
// WaitCh is closed when every task is dead.
func (ar *AllocRunner) Run() {
	ar.runOnce.Do(ar.run)
}

func (ar *AllocRunner) run() {
	if ar.waitPrevious() { // sticky.go
		return
	}
	if ar.cfg.State != nil {
		if err := ar.cfg.State.PutAlloc(ar.Alloc()); err != nil {
			ar.logger.Error("persisting alloc", "error", err)
		}
	}
	names := make([]string, 0, len(ar.tasks)+len(ar.failedTasks))
	for _, t := range ar.group().Tasks {
		names = append(names, t.Name)
	}
	if err := ar.dir.Build(names); err != nil {
		ar.logger.Error("building alloc dir", "error", err)
		ar.failAll(err)
	} else if err := ar.setupNetwork(); err != nil { // network_hook.go
		ar.logger.Error("setting up the group network", "error", err)
		ar.failAll(err)
	}
	ar.mu.Lock()
	runners := make([]*taskrunner.TaskRunner, 0, len(ar.tasks))
	for _, tr := range ar.tasks {
		runners = append(runners, tr)
	}
	// A stop that came while the client was down stops in lifecycle order
	// (poststop tasks run); an allocation that never ran starts nothing.
	stopNow := ar.alloc.TerminalStatus() && anyStarted(runners)
	killNow := len(ar.failedTasks) > 0 || (ar.alloc.TerminalStatus() && !stopNow)
	ar.started = true
	ar.mu.Unlock()
	ar.advanceLifecycle() // restored states may open gates (a client restart)
	for _, tr := range runners {
		if killNow {
			tr.Kill()
		}
		go tr.Run()
	}
	if stopNow && !killNow {
		ar.stopOnce.Do(func() { go ar.stop() }) // lifecycle_hooks.go
	}
	go func() {
		for _, tr := range runners {
			<-tr.WaitCh()
		}
		ar.stopServices() // services.go
		if !ar.isDetached() {
			ar.releaseNetwork() // network_hook.go: every task is dead
		}
		ar.sendUpdate()
		close(ar.waitCh)
	}()
	ar.sendUpdate()
	ar.syncServices() // services.go: re-attached tasks get their checks back
	ar.startHealthWatch()
}

// failAll marks every task failed with a setup failure (alloc dir error).
func (ar *AllocRunner) failAll(err error) {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	for name := range ar.tasks {
		ev := structs.NewTaskEvent(structs.TaskSetupFailure, time.Now())
		ev.Message, ev.DisplayMessage, ev.FailsTask = err.Error(), err.Error(), true
		ar.failedTasks[name] = &structs.TaskState{State: structs.TaskStateDead, Failed: true, Events: []*structs.TaskEvent{ev}}
	}
}

// varsFor returns the variable reader of the named task, or nil.
func (ar *AllocRunner) varsFor(task string) template.VarReader {
	if ar.cfg.Vars == nil {
		return nil
	}
	return ar.cfg.Vars(ar.cfg.Alloc.ID, task)
}
