// Package mock is the mock_driver: tasks are timers, not processes, for
// scheduler, client and scale tests. Task config:
//
//	run_for       duration string ("10s"); 0 or absent: run until stopped
//	exit_code     int, the exit code when run_for elapses
//	stdout_string written to the stdout log at start
//	stderr_string written to the stderr log at start
//	kill_after    duration StopTask takes before the task reports exit
//	start_error   string; StartTask fails with it
package mock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/drivers/base"
)

// Name is the driver name in job files.
const Name = "mock_driver"

// Driver implements base.Driver with timers.
type Driver struct {
	logger hclog.Logger

	tasks *base.Table[task]

	mu      sync.Mutex                  // guards updates
	updates map[string][]base.Resources // UpdateTask calls (mock_update.go)
}

var _ base.Driver = (*Driver)(nil)

// New returns a mock driver.
func New(logger hclog.Logger) base.Driver {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	return &Driver{logger: logger.Named(Name), tasks: base.NewTable(func(t *task) *base.Exit { return t.exit })}
}

// taskConfig is the decoded config block.
type taskConfig struct {
	RunFor       time.Duration
	ExitCode     int
	StdoutString string
	StderrString string
	KillAfter    time.Duration
	StartError   string
}

func parseConfig(c map[string]any) (*taskConfig, error) {
	var tc taskConfig
	var err error
	if tc.RunFor, err = durationKey(c, "run_for"); err != nil {
		return nil, err
	}
	if tc.KillAfter, err = durationKey(c, "kill_after"); err != nil {
		return nil, err
	}
	switch v := c["exit_code"].(type) {
	case nil:
	case int64:
		tc.ExitCode = int(v)
	case int:
		tc.ExitCode = v
	case float64:
		tc.ExitCode = int(v)
	default:
		return nil, fmt.Errorf("exit_code must be a number, got %T", v)
	}
	tc.StdoutString, _ = c["stdout_string"].(string)
	tc.StderrString, _ = c["stderr_string"].(string)
	tc.StartError, _ = c["start_error"].(string)
	return &tc, Schema.Validate(c) // schema.go: no other key, strings are strings
}

func durationKey(c map[string]any, key string) (time.Duration, error) {
	switch v := c[key].(type) {
	case nil:
		return 0, nil
	case string:
		d, err := time.ParseDuration(v)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", key, err)
		}
		return d, nil
	case int64:
		return time.Duration(v), nil
	default:
		return 0, fmt.Errorf("%s must be a duration string, got %T", key, v)
	}
}

// mockState is the DriverState.
type mockState struct {
	StartedAt time.Time
}

// stopRequest asks a task to exit with sig after delay.
type stopRequest struct {
	sig   syscall.Signal
	delay time.Duration
}

// task is one mock task; a goroutine owns its timer and result.
type task struct {
	cfg       *base.TaskConfig
	tc        *taskConfig
	startedAt time.Time
	stopReq   chan stopRequest // StopTask/Destroy ask the task to end
	exit      *base.Exit
}

func (t *task) run(remaining time.Duration) {
	var timeout <-chan time.Time
	if t.tc.RunFor > 0 {
		timer := time.NewTimer(max(remaining, 0))
		defer timer.Stop()
		timeout = timer.C
	}
	res := &base.ExitResult{}
	select {
	case <-timeout:
		res.ExitCode = t.tc.ExitCode
	case req := <-t.stopReq:
		if req.delay > 0 {
			time.Sleep(req.delay) // the configured stop latency
		}
		res.Signal = int(req.sig)
		res.ExitCode = 128 + int(req.sig)
	}
	t.exit.Set(res)
}

// SetConfig accepts any config.
func (d *Driver) SetConfig(map[string]any) error { return nil }

// Fingerprint is always healthy.
func (d *Driver) Fingerprint(context.Context) (*base.Fingerprint, error) {
	return &base.Fingerprint{Health: base.HealthHealthy, HealthDescription: "healthy",
		Attributes: map[string]string{"driver." + Name: "1"}}, nil
}

// Capabilities: signals are accepted (and ignored unless they stop).
func (d *Driver) Capabilities() (*base.Capabilities, error) {
	return &base.Capabilities{SendSignals: true, FSIsolation: base.FSIsolationNone, UpdateResources: true}, nil
}

// StartTask starts the timer and writes the configured output.
func (d *Driver) StartTask(cfg *base.TaskConfig) (*base.TaskHandle, error) {
	tc, err := parseConfig(cfg.Config)
	if err != nil {
		return nil, fmt.Errorf("task %q config: %w", cfg.Name, err)
	}
	if tc.StartError != "" {
		return nil, errors.New(tc.StartError)
	}
	now := time.Now()
	if err := d.add(cfg, tc, now, tc.RunFor); err != nil {
		return nil, err
	}
	writeLog(cfg.StdoutPath, tc.StdoutString)
	writeLog(cfg.StderrPath, tc.StderrString)
	st, _ := json.Marshal(mockState{StartedAt: now})
	return &base.TaskHandle{Version: base.TaskHandleVersion, Config: cfg, State: base.TaskStateRunning, DriverState: st}, nil
}

func (d *Driver) add(cfg *base.TaskConfig, tc *taskConfig, started time.Time, remaining time.Duration) error {
	t := &task{cfg: cfg, tc: tc, startedAt: started, stopReq: make(chan stopRequest, 1), exit: base.NewExit()}
	if err := d.tasks.Add(cfg.ID, t); err != nil {
		return err
	}
	go t.run(remaining)
	return nil
}

// Default is mock_driver's enablement rule: on only with a plugin block,
// with its config or an empty one.
func Default(_ base.Host, cfg map[string]any, ok bool) (map[string]any, bool) {
	if !ok {
		return nil, false
	}
	if cfg == nil {
		cfg = map[string]any{}
	}
	return cfg, true
}
