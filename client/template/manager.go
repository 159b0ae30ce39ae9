package template

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/structs"
)

// Task event types a Manager emits besides the runner's (Nomad's strings).
const (
	EventHookMessage = "Task hook message" // "Missing: nomadVar.block(...)", a change script ran
	EventHookFailed  = "Task hook failed"  // "Template failed: ..."
)

// maxDeps bounds the variables and lists one task's templates may read.
const maxDeps = 256

// Task is what a Manager does to its task after a re-render (the task
// runner implements it). Methods are called from the Manager's goroutine.
type Task interface {
	// Restart restarts the running task (change_mode restart).
	Restart(ctx context.Context) error
	// Signal sends sig to the running task (change_mode signal).
	Signal(sig string) error
	// Exec runs cmd in the task (change_mode script) and returns its exit code.
	Exec(ctx context.Context, cmd []string) (int, error)
	// Kill stops the task for good and marks it failed, after ev.
	Kill(ev *structs.TaskEvent)
	// Event records a task event.
	Event(ev *structs.TaskEvent)
}

// Config is what a Manager needs. Templates, Dirs and Task are required.
type Config struct {
	Templates []*structs.Template
	Dirs      Dirs
	// Vars reads variables; nil: nomadVar* fail with ErrNoVars.
	Vars VarReader
	// Services reads service registrations (nil: Vars, when it is a
	// ServiceReader too; else nomadService* fail with ErrNoServices).
	Services ServiceReader
	// Env returns the task's environment (the env function, and the
	// interpolation of destination and source); called at each render.
	Env func() map[string]string
	// Interpolate resolves ${...} in a destination or source (nil: as is).
	Interpolate func(s string, env map[string]string) string
	// SetEnv receives the variables of the env = true templates after
	// each render that changed them.
	SetEnv func(map[string]string)
	Task   Task
	Logger hclog.Logger
	// Now and Splay are the clock and the splay's random source (tests).
	Now   func() time.Time
	Splay func(max time.Duration) time.Duration
	// Namespace and Region name missing variables in events.
	Namespace, Region string
}

// Manager renders one task's templates and watches what they read.
// Prestart runs on the task runner's goroutine; Watch starts one goroutine
// (plus one per watched dependency) that Stop ends.
type Manager struct {
	cfg      Config
	services ServiceReader // cfg.Services or cfg.Vars; nil: none

	mu      sync.Mutex // guards the fields below and serialises renders and writes
	data    *Data
	deps    map[Dep]bool // every dep the last render read
	env     map[string]string
	missing string // the last "Missing: ..." message, not repeated

	watchOnce sync.Once
	cancel    context.CancelFunc
	done      chan struct{}
}

// New returns a manager; it does nothing until Prestart.
func New(cfg Config) *Manager {
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Splay == nil {
		cfg.Splay = func(max time.Duration) time.Duration {
			if max <= 0 {
				return 0
			}
			return rand.N(max)
		}
	}
	if cfg.Env == nil {
		cfg.Env = func() map[string]string { return nil }
	}
	var data *Data
	if cfg.Vars != nil {
		data = NewData()
	}
	services := cfg.Services
	if sr, ok := cfg.Vars.(ServiceReader); ok && services == nil {
		services = sr
	}
	if services != nil && data == nil {
		data = NewData()
	}
	return &Manager{cfg: cfg, services: services, data: data, deps: map[Dep]bool{}}
}

// rendered is one template's complete rendering and where it goes.
type rendered struct {
	tmpl      *structs.Template
	root, rel string
	out       []byte
}

// Prestart renders every template and writes those that changed, before
// the task starts. While a nomadVar reads a variable that does not exist
// it waits (event "Missing: nomadVar.block(...)") until it does or ctx
// ends. Errors: a template that does not render, a destination or source
// outside the task's directories, ctx's error.
func (m *Manager) Prestart(ctx context.Context) error {
	for {
		rs, blocked, err := m.renderAll(ctx)
		if err != nil {
			return err
		}
		if len(blocked) == 0 {
			m.clearMissing()
			_, err := m.write(rs, true)
			return err
		}
		m.noteMissing(blocked)
		if err := m.waitExists(ctx, blocked[0]); err != nil {
			return err
		}
	}
}

// renderAll renders every template, fetching what they read until the
// renders are complete or blocked on absent variables.
func (m *Manager) renderAll(ctx context.Context) ([]rendered, []Dep, error) {
	for {
		m.mu.Lock()
		rs, unfetched, blocked, err := m.renderLocked()
		m.mu.Unlock()
		if err != nil || len(unfetched) == 0 {
			return rs, blocked, err
		}
		for _, d := range unfetched {
			if err := m.fetch(ctx, d, 0); err != nil {
				return nil, nil, err
			}
		}
	}
}

// renderLocked renders each template with the data held; m.mu is held.
func (m *Manager) renderLocked() ([]rendered, []Dep, []Dep, error) {
	env := m.cfg.Env()
	in := Input{Env: env, Dirs: m.cfg.Dirs, Data: m.data, Services: m.services != nil}
	var rs []rendered
	var unfetched, blocked []Dep
	deps := map[Dep]bool{}
	for _, t := range m.cfg.Templates {
		text := t.EmbeddedTmpl
		if t.SourcePath != "" {
			b, err := ReadTaskFile(m.cfg.Dirs.TaskDir, m.interp(t.SourcePath, env))
			if err != nil {
				return nil, nil, nil, fmt.Errorf("reading template source %q: %w", t.SourcePath, err)
			}
			text = string(b)
		}
		res, err := Render(t, text, in)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, d := range res.Deps {
			deps[d] = true
		}
		unfetched = append(unfetched, res.Unfetched...)
		blocked = append(blocked, res.Blocked...)
		if !res.Complete() {
			continue
		}
		root, rel, err := m.cfg.Dirs.Resolve(m.interp(t.DestPath, env))
		if err != nil {
			return nil, nil, nil, fmt.Errorf("template destination %q: %w", t.DestPath, err)
		}
		rs = append(rs, rendered{tmpl: t, root: root, rel: rel, out: res.Out})
	}
	if len(deps) > maxDeps {
		return nil, nil, nil, fmt.Errorf("templates read %d variables and lists, over the limit of %d", len(deps), maxDeps)
	}
	m.deps = deps
	return rs, unfetched, blocked, nil
}

func (m *Manager) interp(s string, env map[string]string) string {
	if m.cfg.Interpolate == nil {
		return s
	}
	return m.cfg.Interpolate(s, env)
}

// fetch reads d with the reader (blocking while waitIndex > 0) and stores
// it with its index. It reports whether the index moved past waitIndex.
func (m *Manager) fetch(ctx context.Context, d Dep, waitIndex uint64) error {
	u, err := m.read(ctx, d, waitIndex)
	if err != nil {
		return err
	}
	m.store(u)
	return nil
}

// read reads d with its reader (blocking while waitIndex > 0).
func (m *Manager) read(ctx context.Context, d Dep, waitIndex uint64) (update, error) {
	if d.isService() {
		return m.fetchService(ctx, d, waitIndex)
	}
	u := update{dep: d}
	if m.cfg.Vars == nil {
		return u, ErrNoVars
	}
	var err error
	switch d.Kind {
	case DepVar:
		if u.v, u.idx, err = m.cfg.Vars.Var(ctx, d.Path, waitIndex); err != nil {
			return u, fmt.Errorf("reading variable %q: %w", d.Path, err)
		}
	case DepList:
		if u.l, u.idx, err = m.cfg.Vars.List(ctx, d.Path, waitIndex); err != nil {
			return u, fmt.Errorf("listing variables under %q: %w", d.Path, err)
		}
	}
	return u, nil
}

// store keeps what a read returned, with its index.
func (m *Manager) store(u update) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch u.dep.Kind {
	case DepVar:
		m.data.Vars[u.dep.Path] = u.v
	case DepList:
		m.data.Lists[u.dep.Path] = u.l
	case DepService:
		m.data.Services[u.dep.Path] = u.s
	case DepServices:
		m.data.ServiceNames[u.dep.Path] = u.n
	}
	m.data.Indexes[u.dep] = u.idx
}

// waitExists blocks until the variable d exists (or ctx ends).
func (m *Manager) waitExists(ctx context.Context, d Dep) error {
	for {
		m.mu.Lock()
		idx, v := m.data.Indexes[d], m.data.Vars[d.Path]
		m.mu.Unlock()
		if v != nil {
			return nil
		}
		if err := m.fetch(ctx, d, max(idx, 1)); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
	}
}

// noteMissing emits "Missing: nomadVar.block(path@ns.region), ..." once
// per set of missing variables.
func (m *Manager) noteMissing(blocked []Dep) {
	parts := make([]string, 0, len(blocked))
	for _, d := range blocked {
		parts = append(parts, fmt.Sprintf("nomadVar.block(%s@%s.%s)", d.Path, m.cfg.Namespace, m.cfg.Region))
	}
	sort.Strings(parts)
	msg := "Missing: " + strings.Join(parts, ", ")
	m.mu.Lock()
	same := msg == m.missing
	m.missing = msg
	m.mu.Unlock()
	if same {
		return
	}
	m.cfg.Logger.Info("template waiting for variables", "missing", msg)
	m.cfg.Task.Event(m.event(EventHookMessage, msg))
}

// clearMissing forgets the last "Missing" message: the next missing set
// is reported even if it is the same.
func (m *Manager) clearMissing() {
	m.mu.Lock()
	m.missing = ""
	m.mu.Unlock()
}

func (m *Manager) event(typ, msg string) *structs.TaskEvent {
	ev := structs.NewTaskEvent(typ, m.cfg.Now())
	ev.Message, ev.DisplayMessage = msg, msg
	return ev
}

// write writes the renderings that changed and, when rs holds every
// template (all), hands the env templates' variables to SetEnv; it returns
// the templates whose file changed.
func (m *Manager) write(rs []rendered, all bool) ([]*structs.Template, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var changed []*structs.Template
	env := map[string]string{}
	for _, r := range rs {
		perm, err := structs.ParseTemplatePerms(r.tmpl.Perms)
		if err != nil {
			return nil, err
		}
		c, err := WriteFile(r.root, r.rel, r.out, os.FileMode(perm), r.tmpl.Uid, r.tmpl.Gid)
		if err != nil {
			return nil, fmt.Errorf("writing template %q: %w", r.tmpl.DestPath, err)
		}
		if c {
			changed = append(changed, r.tmpl)
		}
		if r.tmpl.Envvars {
			vars, err := ParseEnvFile(r.out)
			if err != nil {
				return nil, fmt.Errorf("template %q: %w", r.tmpl.DestPath, err)
			}
			for k, v := range vars {
				env[k] = v
			}
		}
	}
	if all && m.cfg.SetEnv != nil && !equalEnv(env, m.env) {
		m.env = env
		m.cfg.SetEnv(env)
	}
	return changed, nil
}

func equalEnv(a, b map[string]string) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
