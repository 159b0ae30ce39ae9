package clienttest

import (
	"context"
	"fmt"
	"sync"

	"github.com/nomadish/nomadish/drivers/base"
)

// FakePlugin is a FakeDriver seen as a plugin process: it takes a config,
// fingerprints healthy, and can be crashed (Fingerprint and every later
// call of the plugin then fail with base.ErrPluginShutdown).
type FakePlugin struct {
	*FakeDriver
	Name string

	mu        sync.Mutex
	config    map[string]any
	configErr error // returned by SetConfig when set
	crashed   bool
}

// NewFakePlugin returns a plugin for driver name over drv (a fresh
// FakeDriver when nil; share one to let tasks survive a relaunch).
func NewFakePlugin(name string, drv *FakeDriver) *FakePlugin {
	if drv == nil {
		drv = NewFakeDriver()
	}
	return &FakePlugin{FakeDriver: drv, Name: name}
}

// SetConfig records the plugin config, or fails with the error given to
// RejectConfig.
func (p *FakePlugin) SetConfig(cfg map[string]any) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.crashed {
		return base.ErrPluginShutdown
	}
	if p.configErr != nil {
		return p.configErr
	}
	p.config = cfg
	return nil
}

// RejectConfig makes SetConfig fail with err, like a driver given an
// unknown key.
func (p *FakePlugin) RejectConfig(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.configErr = err
}

// Config returns the config given to SetConfig.
func (p *FakePlugin) Config() map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.config
}

// Fingerprint reports healthy with attribute driver.<name>.version, or an
// error once crashed.
func (p *FakePlugin) Fingerprint(ctx context.Context) (*base.Fingerprint, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.crashed {
		return nil, fmt.Errorf("fingerprint: %w", base.ErrPluginShutdown)
	}
	return &base.Fingerprint{Health: base.HealthHealthy, HealthDescription: "Healthy",
		Attributes: map[string]string{"driver." + p.Name + ".version": "0.1"}}, nil
}

// Crash makes the plugin behave like a dead process.
func (p *FakePlugin) Crash() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.crashed = true
}

// Kill is the kill function Launch returns: it crashes the plugin.
func (p *FakePlugin) Kill() { p.Crash() }
