package services

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/client/checks"
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// Registrar stores registrations on the servers (client.ServiceRegistrar
// through the node's RPC, with the node's secret).
type Registrar interface {
	Upsert(regs []*structs.ServiceRegistration) error
	DeleteByID(namespace, id string) error
	DeleteByAllocIDs(allocIDs []string) error
}

// Task is what the hook needs of one task of the allocation (the task
// runner): exec for script checks, restart for check_restart.
type Task interface {
	Exec(ctx context.Context, opts *base.ExecOptions) (*base.ExitResult, error)
	RestartForCheck(ctx context.Context, check string) error
}

// Config is what a Hook needs. Alloc is required.
type Config struct {
	Alloc *structs.Allocation
	// Registrar is nil when nothing is registered (checks still run).
	Registrar Registrar
	// Node returns the client's node (its address); nil: none.
	Node func() *structs.Node
	// Task returns a task of the allocation, or nil.
	Task func(name string) Task
	// OnCheck is called, from a check's goroutine, after a result; it must
	// not block (the alloc runner's health watch).
	OnCheck func()
	Logger  hclog.Logger
}

// Backoff of a failed registration RPC.
const (
	retryMin = 500 * time.Millisecond
	retryMax = 30 * time.Second
	// finalAttempts bounds the deregistration when the allocation is done.
	finalAttempts = 3
)

// Hook registers the services of one allocation and runs their checks.
// Sync and Results are safe from any goroutine and do not block; Stop
// waits for every goroutine of the hook.
type Hook struct {
	cfg    Config
	logger hclog.Logger
	runner *checks.Runner

	mu   sync.Mutex // guards snap
	snap snapshot
	kick chan struct{} // cap 1: snap changed

	stopOnce   sync.Once
	stopCh     chan struct{}
	deregister bool // set before stopCh closes
	done       chan struct{}

	// owned by the loop goroutine
	registered map[string]*structs.ServiceRegistration
	started    map[string]time.Time // running check -> its instance (desired.started)
}

// snapshot is the newest view of the allocation the loop works from.
type snapshot struct {
	alloc        *structs.Allocation
	running      map[string]time.Time // running task -> its start
	groupRunning bool
}

// New starts a hook for cfg.Alloc; nothing is registered before the first
// Sync.
func New(cfg Config) *Hook {
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	h := &Hook{cfg: cfg, logger: cfg.Logger.Named("services").With("alloc_id", cfg.Alloc.ID),
		kick: make(chan struct{}, 1), stopCh: make(chan struct{}), done: make(chan struct{}),
		registered: map[string]*structs.ServiceRegistration{}, started: map[string]time.Time{}, snap: snapshot{alloc: cfg.Alloc}}
	h.runner = checks.NewRunner(h.onResult, nil)
	go h.loop()
	return h
}

// HasServices reports whether the allocation's group or tasks declare any
// service (the alloc runner builds no hook otherwise).
func HasServices(alloc *structs.Allocation) bool {
	tg := group(alloc)
	if tg == nil {
		return false
	}
	if len(tg.Services) > 0 {
		return true
	}
	for _, t := range tg.Tasks {
		if len(t.Services) > 0 {
			return true
		}
	}
	return false
}

func group(a *structs.Allocation) *structs.TaskGroup {
	if a == nil || a.Job == nil {
		return nil
	}
	return a.Job.LookupTaskGroup(a.TaskGroup)
}

// Sync hands the hook the newest allocation, the running tasks with their
// start times, and whether the group's tasks all run: services of what
// runs are registered and checked, the others deregistered.
func (h *Hook) Sync(alloc *structs.Allocation, running map[string]time.Time, groupRunning bool) {
	h.mu.Lock()
	h.snap = snapshot{alloc: alloc, running: maps.Clone(running), groupRunning: groupRunning}
	h.mu.Unlock()
	select {
	case h.kick <- struct{}{}:
	default:
	}
}

// Results returns the latest result of each check started (keyed by check ID).
func (h *Hook) Results() map[string]*structs.CheckQueryResult { return h.runner.Results() }

// Stop stops the checks and the hook's goroutine; with deregister (the
// allocation is done) it first deletes the allocation's registrations,
// trying a few times. Without it (the client shuts down, the tasks keep
// running) the registrations stay. It waits for every goroutine.
func (h *Hook) Stop(deregister bool) {
	h.stopOnce.Do(func() {
		h.deregister = deregister
		close(h.stopCh)
	})
	<-h.done
}

func (h *Hook) loop() {
	defer close(h.done)
	var retry *time.Timer
	var retryC <-chan time.Time
	backoff := retryMin
	for {
		select {
		case <-h.stopCh:
			if retry != nil {
				retry.Stop()
			}
			h.runner.StopAll()
			if h.deregister {
				h.deregisterAll()
			}
			return
		case <-h.kick:
		case <-retryC:
		}
		if retry != nil {
			retry.Stop()
			retry, retryC = nil, nil
		}
		if err := h.reconcile(); err != nil {
			h.logger.Warn("registering services; will retry", "error", err, "in", backoff)
			retry = time.NewTimer(backoff)
			retryC = retry.C
			backoff = min(2*backoff, retryMax)
			continue
		}
		backoff = retryMin
	}
}

// desired is the registrations and checks of what runs now.
type desired struct {
	regs    map[string]*structs.ServiceRegistration
	specs   map[string]checks.Spec
	started map[string]time.Time // check ID -> the task instance it checks
}

// reconcile moves the servers' registrations and the running checks to
// the snapshot's; it returns the registration RPC's error (checks are
// started and stopped whatever it is).
func (h *Hook) reconcile() error {
	h.mu.Lock()
	snap := h.snap
	h.mu.Unlock()
	want := h.desired(snap)
	var stop []string
	for _, id := range h.runner.Running() {
		if _, ok := want.specs[id]; !ok || !want.started[id].Equal(h.started[id]) {
			stop = append(stop, id)
		}
	}
	h.runner.Stop(stop...)
	for id, s := range want.specs {
		h.runner.Start(s)
		h.started[id] = want.started[id]
	}
	if h.cfg.Registrar == nil {
		return nil
	}
	var errs []error
	for id, r := range h.registered {
		if _, ok := want.regs[id]; ok {
			continue
		}
		if err := h.cfg.Registrar.DeleteByID(r.Namespace, id); err != nil {
			errs = append(errs, fmt.Errorf("deregistering %s: %w", id, err))
			continue
		}
		delete(h.registered, id)
	}
	var up []*structs.ServiceRegistration
	for id, r := range want.regs {
		if old, ok := h.registered[id]; !ok || !sameRegistration(old, r) {
			up = append(up, r)
		}
	}
	if len(up) > 0 {
		if err := h.cfg.Registrar.Upsert(up); err != nil {
			errs = append(errs, fmt.Errorf("registering %d services: %w", len(up), err))
		} else {
			for _, r := range up {
				h.registered[r.ID] = r
			}
		}
	}
	return errors.Join(errs...)
}

func sameRegistration(a, b *structs.ServiceRegistration) bool {
	return a.Address == b.Address && a.Port == b.Port && reflect.DeepEqual(a.Tags, b.Tags) &&
		a.ServiceName == b.ServiceName && a.Namespace == b.Namespace
}

// deregisterAll deletes the allocation's registrations, finalAttempts
// times at most (the servers also drop them when the node goes down).
func (h *Hook) deregisterAll() {
	if h.cfg.Registrar == nil {
		return
	}
	wait := retryMin
	for i := 0; ; i++ {
		err := h.cfg.Registrar.DeleteByAllocIDs([]string{h.cfg.Alloc.ID})
		if err == nil {
			return
		}
		if i+1 >= finalAttempts {
			h.logger.Warn("deregistering the allocation's services failed", "error", err)
			return
		}
		time.Sleep(wait) // bounded: finalAttempts tries
		wait *= 2
	}
}
