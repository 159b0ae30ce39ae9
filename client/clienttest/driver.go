// Package clienttest holds real in-memory fakes for testing the client: a
// driver (FakeDriver) and a server (FakeServer) answering the client's RPCs.
package clienttest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/drivers/base"
)

var _ taskrunner.Driver = (*FakeDriver)(nil)

// FakeDriver runs pretend tasks in memory. A task's Config says what it does:
//
//	"run_for"       duration string: run this long, then exit (default: until stopped)
//	"exit_code"     int: the exit code
//	"stdout_string" string: written to <StdoutPath>.0 at start
//	"start_error"   string: StartTask fails with it
//	"ignore_signal" bool: StopTask does not end it; only DestroyTask(force) does
//
// Tasks outlive the task runner that started them (like a real executor), so
// a second runner can RecoverTask them. Safe for concurrent use.
type FakeDriver struct {
	mu    sync.Mutex
	tasks map[string]*fakeTask
	calls []string    // "start <id>", "recover <id>", "stop <id> <timeout> <signal>", ...
	ctl   fakeControl // signals and stats (driver_control.go)
}

type fakeTask struct {
	cfg    *base.TaskConfig
	done   chan struct{}
	result *base.ExitResult
	timer  *time.Timer
	ignore bool
}

// NewFakeDriver returns an empty driver.
func NewFakeDriver() *FakeDriver { return &FakeDriver{tasks: map[string]*fakeTask{}} }

// Calls returns the calls made so far, in order.
func (d *FakeDriver) Calls() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.calls...)
}

// Started returns the configs of every task started, in order.
func (d *FakeDriver) Started() []*base.TaskConfig {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []*base.TaskConfig
	for _, c := range d.calls {
		var id string
		if _, err := fmt.Sscanf(c, "start %s", &id); err == nil {
			out = append(out, d.tasks[id].cfg)
		}
	}
	return out
}

func (d *FakeDriver) record(format string, args ...any) {
	d.calls = append(d.calls, fmt.Sprintf(format, args...))
}

// StartTask starts a pretend task.
func (d *FakeDriver) StartTask(cfg *base.TaskConfig) (*base.TaskHandle, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.record("start %s", cfg.ID)
	if msg, _ := cfg.Config["start_error"].(string); msg != "" {
		return nil, errors.New(msg)
	}
	t := &fakeTask{cfg: cfg, done: make(chan struct{})}
	t.ignore, _ = cfg.Config["ignore_signal"].(bool)
	d.tasks[cfg.ID] = t
	if s, _ := cfg.Config["stdout_string"].(string); s != "" && cfg.StdoutPath != "" {
		if err := os.WriteFile(cfg.StdoutPath+".0", []byte(s), 0o644); err != nil {
			return nil, err
		}
	}
	code := toInt(cfg.Config["exit_code"])
	if rf, _ := cfg.Config["run_for"].(string); rf != "" {
		dur, err := time.ParseDuration(rf)
		if err != nil {
			return nil, fmt.Errorf("run_for: %w", err)
		}
		t.timer = time.AfterFunc(dur, func() { d.exit(cfg.ID, &base.ExitResult{ExitCode: code}) })
	}
	return &base.TaskHandle{Version: 1, Config: cfg, State: base.TaskStateRunning, DriverState: []byte(cfg.ID)}, nil
}

func toInt(v any) int {
	switch n := v.(type) {
	case int:
		return n
	case int64:
		return int(n)
	case uint64:
		return int(n)
	case float64:
		return int(n)
	}
	return 0
}

// exit ends a task once.
func (d *FakeDriver) exit(id string, res *base.ExitResult) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t := d.tasks[id]
	if t == nil || t.result != nil {
		return
	}
	t.result = res
	if t.timer != nil {
		t.timer.Stop()
	}
	close(t.done)
}

// Exit ends a running task with the given exit code (for tests).
func (d *FakeDriver) Exit(id string, code int) { d.exit(id, &base.ExitResult{ExitCode: code}) }

// WaitTask returns a channel that yields the task's exit.
func (d *FakeDriver) WaitTask(ctx context.Context, id string) (<-chan *base.ExitResult, error) {
	d.mu.Lock()
	t := d.tasks[id]
	d.mu.Unlock()
	if t == nil {
		return nil, fmt.Errorf("fake: unknown task %q", id)
	}
	ch := make(chan *base.ExitResult, 1)
	go func() {
		select {
		case <-t.done:
			ch <- t.result
		case <-ctx.Done():
		}
		close(ch)
	}()
	return ch, nil
}

// StopTask ends the task with signal 15 unless it ignores signals.
func (d *FakeDriver) StopTask(id string, timeout time.Duration, signal string) error {
	d.mu.Lock()
	d.record("stop %s %v %s", id, timeout, signal)
	t := d.tasks[id]
	d.mu.Unlock()
	if t == nil {
		return fmt.Errorf("fake: unknown task %q", id)
	}
	if !t.ignore {
		d.exit(id, &base.ExitResult{ExitCode: 143, Signal: 15})
	}
	return nil
}

// DestroyTask forgets the task, killing it (signal 9) if still running.
func (d *FakeDriver) DestroyTask(id string, force bool) error {
	d.exit(id, &base.ExitResult{ExitCode: 137, Signal: 9})
	d.mu.Lock()
	defer d.mu.Unlock()
	d.record("destroy %s", id)
	return nil
}

// RecoverTask re-attaches to a task this driver still runs.
func (d *FakeDriver) RecoverTask(h *base.TaskHandle) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.record("recover %s", h.Config.ID)
	if t := d.tasks[h.Config.ID]; t == nil || t.result != nil {
		return fmt.Errorf("fake: task %q is gone", h.Config.ID)
	}
	return nil
}

// Running returns the IDs of tasks still running.
func (d *FakeDriver) Running() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for id, t := range d.tasks {
		if t.result == nil {
			out = append(out, id)
		}
	}
	return out
}
