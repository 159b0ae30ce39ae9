// Package pluginmgr runs the client's driver plugins: it launches each
// enabled driver (in parallel, for a fast start), applies its config,
// fingerprints its health, relaunches a plugin whose process died (with
// backoff, the driver marked unhealthy meanwhile; a plugin that rejects its
// config stays unhealthy with the reason and is not relaunched), and hands
// task runners a stable Driver that always talks to the current plugin
// process.
package pluginmgr

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// Sentinels.
var (
	// ErrUnknownDriver is returned by Driver for a driver that is not enabled.
	ErrUnknownDriver = errors.New("pluginmgr: driver not enabled on this client")
	// ErrInvalidConfig wraps a plugin's SetConfig rejection (an unknown key,
	// a wrong type). The driver is reported unhealthy with the message and
	// not relaunched: the config cannot change until the agent restarts.
	ErrInvalidConfig = errors.New("invalid plugin config")
)

// Plugin is what the manager needs from a launched driver plugin
// (drivers/base.Driver satisfies it).
type Plugin interface {
	taskrunner.Driver
	SetConfig(cfg map[string]any) error
	Fingerprint(ctx context.Context) (*base.Fingerprint, error)
}

// LaunchFunc starts the named driver's plugin process and returns it with a
// function that kills the process (drivers.Launch bound to the executable).
type LaunchFunc func(name string) (Plugin, func(), error)

// Defaults.
const (
	DefaultHealthInterval = 10 * time.Second
	DefaultStartTimeout   = 5 * time.Second
	maxRelaunchBackoff    = 30 * time.Second
)

// Config configures a manager. Drivers and Launch are required.
type Config struct {
	// Drivers maps each enabled driver to its plugin config.
	Drivers map[string]map[string]any
	Launch  LaunchFunc
	Logger  hclog.Logger
	// OnChange is called (from a manager goroutine, must not block long)
	// when a driver's health changed after Start returned.
	OnChange func()
	// HealthInterval is how often each plugin is fingerprinted.
	HealthInterval time.Duration
	// StartTimeout bounds the first launch + fingerprint of each plugin.
	StartTimeout time.Duration
}

// Manager owns the plugin processes. Safe for concurrent use.
type Manager struct {
	cfg    Config
	logger hclog.Logger

	mu        sync.Mutex // guards instances' plugin, kill and info
	instances map[string]*instance

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

type instance struct {
	name   string
	config map[string]any
	plugin Plugin // nil while (re)launching
	kill   func()
	info   *structs.DriverInfo
	// configErr is the plugin's rejection of its config (wrapping
	// ErrInvalidConfig); once set, the plugin is never launched again.
	configErr error
	// poke (cap 1) asks the watcher to check the plugin now: a call
	// through the proxy found the plugin process gone.
	poke chan struct{}
}

// New returns a manager; Start launches the plugins.
func New(cfg Config) *Manager {
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	if cfg.HealthInterval <= 0 {
		cfg.HealthInterval = DefaultHealthInterval
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{cfg: cfg, logger: cfg.Logger.Named("plugins"), instances: map[string]*instance{}, ctx: ctx, cancel: cancel}
	for name, c := range cfg.Drivers {
		m.instances[name] = &instance{name: name, config: c, poke: make(chan struct{}, 1),
			info: &structs.DriverInfo{HealthDescription: "starting", UpdateTime: time.Now()}}
	}
	return m
}

// Start launches every plugin in parallel and waits for each one's first
// fingerprint (or its failure); a plugin that fails is reported unhealthy
// and retried in the background, unless it rejected its config
// (ErrInvalidConfig), which no retry can fix. Then each plugin is watched.
func (m *Manager) Start() {
	var wg sync.WaitGroup
	for _, inst := range m.instances {
		wg.Go(func() {
			err := m.launch(inst)
			switch {
			case errors.Is(err, ErrInvalidConfig):
				m.logger.Error("driver plugin config rejected; driver unhealthy until the agent restarts with a fixed config",
					"driver", inst.name, "error", err)
			case err != nil:
				m.logger.Warn("driver plugin failed to start", "driver", inst.name, "error", err)
			}
		})
	}
	wg.Wait()
	for _, inst := range m.instances {
		m.wg.Go(func() { m.watch(inst) })
	}
}

// launch starts one plugin, configures and fingerprints it.
func (m *Manager) launch(inst *instance) error {
	p, kill, err := m.cfg.Launch(inst.name)
	if err != nil {
		m.setInfo(inst, nil, nil, fmt.Errorf("launching plugin: %w", err))
		return err
	}
	if err := p.SetConfig(inst.config); err != nil {
		kill()
		if errors.Is(err, base.ErrPluginShutdown) {
			err = fmt.Errorf("configuring plugin: %w", err) // the process died: retry
		} else {
			err = fmt.Errorf("%w: %w", ErrInvalidConfig, err)
			m.mu.Lock()
			inst.configErr = err
			m.mu.Unlock()
		}
		m.setInfo(inst, nil, nil, err)
		return err
	}
	ctx, cancel := context.WithTimeout(m.ctx, m.cfg.StartTimeout)
	defer cancel()
	fp, err := p.Fingerprint(ctx)
	if err != nil {
		kill()
		err = fmt.Errorf("fingerprinting plugin: %w", err)
		m.setInfo(inst, nil, nil, err)
		return err
	}
	m.mu.Lock()
	inst.plugin, inst.kill = p, kill
	m.mu.Unlock()
	m.setInfo(inst, p, fp, nil)
	return nil
}

// setInfo records the driver's health from a fingerprint or an error and
// reports whether it changed.
func (m *Manager) setInfo(inst *instance, p Plugin, fp *base.Fingerprint, err error) bool {
	info := &structs.DriverInfo{UpdateTime: time.Now(), Attributes: map[string]string{}}
	if err != nil {
		info.Detected, info.HealthDescription = true, err.Error()
	} else {
		info.Detected = fp.Health != base.HealthUndetected
		info.Healthy = fp.Health == base.HealthHealthy
		info.HealthDescription = fp.HealthDescription
		for k, v := range fp.Attributes {
			info.Attributes[k] = v
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	old := inst.info
	inst.info = info
	return old.Detected != info.Detected || old.Healthy != info.Healthy || old.HealthDescription != info.HealthDescription
}

// Infos returns a copy of every driver's info, keyed by driver name.
func (m *Manager) Infos() map[string]*structs.DriverInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]*structs.DriverInfo, len(m.instances))
	for name, inst := range m.instances {
		c := *inst.info
		c.Attributes = make(map[string]string, len(inst.info.Attributes))
		for k, v := range inst.info.Attributes {
			c.Attributes[k] = v
		}
		out[name] = &c
	}
	return out
}

// Attributes returns the node attributes the drivers contribute:
// "driver.<name>" = "1" for each detected driver, plus each driver's own.
func (m *Manager) Attributes() map[string]string {
	out := map[string]string{}
	infos := m.Infos()
	names := make([]string, 0, len(infos))
	for n := range infos {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		info := infos[name]
		if !info.Detected || !info.Healthy {
			continue
		}
		for k, v := range info.Attributes {
			out[k] = v
		}
		out["driver."+name] = "1"
	}
	return out
}

// Shutdown stops the watchers and kills every plugin process. Tasks the
// drivers run may survive it (that is the driver's business).
func (m *Manager) Shutdown() {
	m.cancel()
	m.wg.Wait()
	m.mu.Lock()
	var kills []func()
	for _, inst := range m.instances {
		if inst.kill != nil {
			kills = append(kills, inst.kill)
			inst.plugin, inst.kill = nil, nil
		}
	}
	m.mu.Unlock()
	// Each kill may wait for a graceful exit: kill them all at once.
	var wg sync.WaitGroup
	for _, kill := range kills {
		wg.Go(kill)
	}
	wg.Wait()
}
