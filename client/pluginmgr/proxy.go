package pluginmgr

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/drivers/base"
)

// Driver returns a driver that forwards each call to the named plugin's
// current process, so task runners survive a plugin relaunch. While the
// plugin is down, calls fail with an error wrapping base.ErrPluginShutdown.
func (m *Manager) Driver(name string) (taskrunner.Driver, error) {
	if _, ok := m.instances[name]; !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownDriver, name)
	}
	return &proxy{m: m, name: name}, nil
}

type proxy struct {
	m    *Manager
	name string
}

var _ taskrunner.Driver = (*proxy)(nil)

// check pokes the watcher when err says the plugin process is gone, so it
// is relaunched now rather than at the next health check.
func (p *proxy) check(err error) error {
	if errors.Is(err, base.ErrPluginShutdown) {
		select {
		case p.m.instances[p.name].poke <- struct{}{}:
		default:
		}
	}
	return err
}

func (p *proxy) current() (Plugin, error) {
	p.m.mu.Lock()
	defer p.m.mu.Unlock()
	inst := p.m.instances[p.name]
	if pl := inst.plugin; pl != nil {
		return pl, nil
	}
	if inst.configErr != nil {
		return nil, fmt.Errorf("driver %q: %w", p.name, inst.configErr)
	}
	return nil, p.check(fmt.Errorf("driver %q: %w", p.name, base.ErrPluginShutdown))
}

func (p *proxy) StartTask(cfg *base.TaskConfig) (*base.TaskHandle, error) {
	pl, err := p.current()
	if err != nil {
		return nil, err
	}
	h, err := pl.StartTask(cfg)
	return h, p.check(err)
}

func (p *proxy) WaitTask(ctx context.Context, id string) (<-chan *base.ExitResult, error) {
	pl, err := p.current()
	if err != nil {
		return nil, err
	}
	ch, err := pl.WaitTask(ctx, id)
	return ch, p.check(err)
}

func (p *proxy) StopTask(id string, timeout time.Duration, signal string) error {
	pl, err := p.current()
	if err != nil {
		return err
	}
	return p.check(pl.StopTask(id, timeout, signal))
}

func (p *proxy) DestroyTask(id string, force bool) error {
	pl, err := p.current()
	if err != nil {
		return err
	}
	return p.check(pl.DestroyTask(id, force))
}

func (p *proxy) RecoverTask(h *base.TaskHandle) error {
	pl, err := p.current()
	if err != nil {
		return err
	}
	return p.check(pl.RecoverTask(h))
}
