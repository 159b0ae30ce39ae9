package checks

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// Spec is one check to run.
type Spec struct {
	ID      string // CheckID
	Check   *structs.ServiceCheck
	Group   string
	Task    string // the task of a task-level service; "" for a group service
	Service string
	Checker Checker
	// Restart is the check_restart watch of RestartTask, the task the
	// check restarts (nil: none); the Runner owns it once started.
	Restart     *RestartWatch
	RestartTask string
}

// ResultFunc hears each result of a check, from the check's goroutine:
// status is the reported status, restart whether check_restart asks for
// the task's restart now. ctx ends when the check is stopped. It must not
// call the Runner's Stop for the same check (it would wait for itself).
type ResultFunc func(ctx context.Context, s Spec, status string, restart bool)

// Runner runs checks, each in its own goroutine every interval, and keeps
// their latest results. Methods are safe from any goroutine.
type Runner struct {
	onResult ResultFunc
	now      func() time.Time

	mu      sync.Mutex // guards the maps below
	results map[string]*structs.CheckQueryResult
	since   map[string]time.Time // when each check's status last changed
	running map[string]*running
}

type running struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// NewRunner returns a runner that calls onResult (may be nil) after each
// result; now is its clock (nil: time.Now).
func NewRunner(onResult ResultFunc, now func() time.Time) *Runner {
	if now == nil {
		now = time.Now
	}
	return &Runner{onResult: onResult, now: now, results: map[string]*structs.CheckQueryResult{},
		since: map[string]time.Time{}, running: map[string]*running{}}
}

// Start starts s unless a check with its ID runs: its result is at once
// the check's initial status, then the first run follows.
func (r *Runner) Start(s Spec) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.running[s.ID]; ok {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	run := &running{cancel: cancel, done: make(chan struct{})}
	r.running[s.ID] = run
	tr := NewTracker(s.Check)
	r.setLocked(s, tr.Status(), Result{Output: "check not run yet"})
	go r.loop(ctx, s, tr, run.done)
}

// Stop stops the checks with the given IDs and waits for their
// goroutines; their last results stay.
func (r *Runner) Stop(ids ...string) {
	var wait []*running
	r.mu.Lock()
	for _, id := range ids {
		if run, ok := r.running[id]; ok {
			run.cancel()
			wait = append(wait, run)
			delete(r.running, id)
		}
	}
	r.mu.Unlock()
	for _, run := range wait {
		<-run.done
	}
}

// StopAll stops every check and waits for their goroutines.
func (r *Runner) StopAll() { r.Stop(r.Running()...) }

// Running returns the IDs of the running checks.
func (r *Runner) Running() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := make([]string, 0, len(r.running))
	for id := range r.running {
		ids = append(ids, id)
	}
	return ids
}

// Results returns a copy of the latest result of every check started.
func (r *Runner) Results() map[string]*structs.CheckQueryResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]*structs.CheckQueryResult, len(r.results))
	for id, res := range r.results {
		c := *res
		out[id] = &c
	}
	return out
}

// Status returns a check's reported status and since when it holds;
// ok is false for a check never started.
func (r *Runner) Status(id string) (status string, since time.Time, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res, ok := r.results[id]
	if !ok {
		return "", time.Time{}, false
	}
	return res.Status, r.since[id], true
}

// Since returns a copy of every check's status-change time.
func (r *Runner) Since() map[string]time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.since)
}

// loop runs one check until ctx ends.
func (r *Runner) loop(ctx context.Context, s Spec, tr *Tracker, done chan struct{}) {
	defer close(done)
	interval, timeout := s.Check.Interval, s.Check.Timeout
	if interval <= 0 {
		interval = DefaultInterval
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cctx, cancel := context.WithTimeout(ctx, timeout)
		res := s.Checker.Check(cctx)
		cancel()
		if ctx.Err() != nil {
			return // stopped while running: the result says nothing
		}
		status := tr.Observe(res.Status)
		r.mu.Lock()
		r.setLocked(s, status, res)
		r.mu.Unlock()
		restart := s.Restart.Observe(status, r.now())
		if r.onResult != nil {
			r.onResult(ctx, s, status, restart)
		}
		t.Reset(interval)
	}
}

// setLocked records a result; r.mu is held.
func (r *Runner) setLocked(s Spec, status string, res Result) {
	if old, ok := r.results[s.ID]; !ok || old.Status != status {
		r.since[s.ID] = r.now()
	}
	r.results[s.ID] = &structs.CheckQueryResult{
		ID: s.ID, Mode: Mode(s.Check), Status: status, StatusCode: res.StatusCode, Output: res.Output,
		Timestamp: r.now().Unix(), Group: s.Group, Task: s.Task, Service: s.Service, Check: s.Check.Name,
	}
}
