package template

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// retryDelay is how long a dependency's watcher waits after a read error.
const retryDelay = 2 * time.Second

// Watch starts watching what the templates read (once; later calls do
// nothing): each variable or list gets a blocking-query goroutine; a
// change re-renders the templates, after the templates' wait (the largest
// min and max among them) has coalesced changes, writes the files whose
// content changed, and applies their change modes after a random splay.
// Call it after Prestart succeeded. Stop ends it.
func (m *Manager) Watch() {
	m.watchOnce.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		m.cancel, m.done = cancel, make(chan struct{})
		go func() {
			defer close(m.done)
			m.watchLoop(ctx)
		}()
	})
}

// Stop ends the watcher and waits for its goroutines; safe to call more
// than once, and without Watch.
func (m *Manager) Stop() {
	m.watchOnce.Do(func() { m.done = make(chan struct{}); close(m.done) })
	if m.cancel != nil {
		m.cancel()
	}
	<-m.done
}

// update is a dependency's new state from its watcher.
type update struct {
	dep Dep
	v   *Var
	l   []*Var
	s   []*Service     // DepService
	n   []*ServiceStub // DepServices
	idx uint64
}

// watchLoop is the watcher's owner goroutine: it keeps one goroutine per
// dependency, coalesces their updates, re-renders and applies changes.
func (m *Manager) watchLoop(ctx context.Context) {
	updates := make(chan update)
	watchers := map[Dep]context.CancelFunc{}
	exited := make(chan struct{}, maxDeps)
	running := 0
	defer func() {
		for _, c := range watchers {
			c()
		}
		for ; running > 0; running-- {
			<-exited
		}
	}()
	sync := func() {
		if m.data == nil {
			return // no variable reader: nothing to watch
		}
		m.mu.Lock()
		deps := make(map[Dep]uint64, len(m.deps))
		for d := range m.deps {
			deps[d] = m.data.Indexes[d]
		}
		m.mu.Unlock()
		for d, c := range watchers {
			if _, ok := deps[d]; !ok {
				c()
				delete(watchers, d)
			}
		}
		for d, idx := range deps {
			if _, ok := watchers[d]; !ok {
				wctx, cancel := context.WithCancel(ctx)
				watchers[d] = cancel
				running++
				go func() {
					defer func() { exited <- struct{}{} }()
					m.watchDep(wctx, d, idx, updates)
				}()
			}
		}
	}
	sync()
	minWait, maxWait := m.waitBounds()
	var quiet, deadline <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-exited:
			running--
			continue
		case u := <-updates:
			m.store(u)
			quiet = time.After(minWait)
			if deadline == nil && maxWait > 0 {
				deadline = time.After(maxWait)
			}
			continue
		case <-quiet:
		case <-deadline:
		}
		if quiet == nil && deadline == nil {
			continue
		}
		quiet, deadline = nil, nil
		m.rerender(ctx)
		sync()
	}
}

// waitBounds returns the largest wait min and max of the templates.
func (m *Manager) waitBounds() (lo, hi time.Duration) {
	for _, t := range m.cfg.Templates {
		if w := t.Wait; w != nil {
			if w.Min != nil {
				lo = max(lo, *w.Min)
			}
			if w.Max != nil {
				hi = max(hi, *w.Max)
			}
		}
	}
	return lo, hi
}

// watchDep runs blocking queries on d from index idx and sends each new
// state to updates, until ctx ends.
func (m *Manager) watchDep(ctx context.Context, d Dep, idx uint64, updates chan<- update) {
	for {
		u, err := m.read(ctx, d, max(idx, 1))
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			m.cfg.Logger.Warn("watching template dependency", "dep", d.String(), "error", err)
			select {
			case <-time.After(retryDelay):
				continue
			case <-ctx.Done():
				return
			}
		}
		if u.idx <= idx {
			continue
		}
		idx = u.idx
		select {
		case updates <- u:
		case <-ctx.Done():
			return
		}
	}
}

// rerender renders the templates with the newest data, writes those whose
// content changed and applies their change modes. A render error kills the
// task (event "Template failed: ..."), as Nomad does.
func (m *Manager) rerender(ctx context.Context) {
	rs, blocked, err := m.renderAll(ctx)
	if err == nil && len(blocked) > 0 {
		m.noteMissing(blocked)
	} else if err == nil {
		m.clearMissing()
	}
	var changed []*structs.Template
	if err == nil {
		changed, err = m.write(rs, len(blocked) == 0)
	}
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		m.cfg.Logger.Error("template re-render failed", "error", err)
		m.cfg.Task.Kill(m.failed(fmt.Sprintf("Template failed: %v", err)))
		return
	}
	if len(changed) > 0 {
		m.changeModes(ctx, changed)
	}
}

func (m *Manager) failed(msg string) *structs.TaskEvent {
	ev := m.event(EventHookFailed, msg)
	ev.FailsTask = true
	return ev
}

// changeModes applies the change modes of the re-rendered templates as
// Nomad does: one restart if any asks for it (signals and scripts are
// then moot), else each distinct signal once and each script, after the
// largest splay among them.
func (m *Manager) changeModes(ctx context.Context, changed []*structs.Template) {
	var restart bool
	var signals []string
	var scripts []*structs.ChangeScript
	var splay time.Duration
	for _, t := range changed {
		switch t.ChangeMode {
		case structs.TemplateChangeModeRestart:
			restart = true
		case structs.TemplateChangeModeSignal:
			if !slices.Contains(signals, t.ChangeSignal) {
				signals = append(signals, t.ChangeSignal)
			}
		case structs.TemplateChangeModeScript:
			scripts = append(scripts, t.ChangeScript)
		default:
			continue
		}
		splay = max(splay, t.Splay)
	}
	if !restart && len(signals) == 0 && len(scripts) == 0 {
		return
	}
	if d := m.cfg.Splay(splay); d > 0 {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return
		}
	}
	if restart {
		ev := m.event(structs.TaskRestartSignal, "Template with change_mode restart re-rendered")
		m.cfg.Task.Event(ev)
		if err := m.cfg.Task.Restart(ctx); err != nil {
			m.cfg.Logger.Warn("restarting task after template change", "error", err)
		}
		return
	}
	for _, sig := range signals {
		ev := m.event(EventHookMessage, "Template re-rendered")
		ev.Details["signal"] = sig
		m.cfg.Task.Event(ev)
		if err := m.cfg.Task.Signal(sig); err != nil {
			m.cfg.Task.Kill(m.failed(fmt.Sprintf("Template failed to send signal %s: %v", sig, err)))
			return
		}
	}
	for _, cs := range scripts {
		m.runScript(ctx, cs)
	}
}

// runScript runs a change script in the task with its timeout.
func (m *Manager) runScript(ctx context.Context, cs *structs.ChangeScript) {
	timeout := cs.Timeout
	if timeout <= 0 {
		timeout = structs.DefaultChangeScriptTimeout
	}
	sctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	code, err := m.cfg.Task.Exec(sctx, append([]string{cs.Command}, cs.Args...))
	if err == nil && code == 0 {
		m.cfg.Task.Event(m.event(EventHookMessage, fmt.Sprintf("Template ran script %s with arguments %v on change", cs.Command, cs.Args)))
		return
	}
	if sctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("timed out after %v", timeout)
	} else if err == nil {
		err = fmt.Errorf("exit code %d", code)
	}
	msg := fmt.Sprintf("Template failed to run script %s with arguments %v on change: %v", cs.Command, cs.Args, err)
	if cs.FailOnError {
		m.cfg.Task.Kill(m.failed(msg))
		return
	}
	m.cfg.Task.Event(m.event(EventHookFailed, msg))
}
