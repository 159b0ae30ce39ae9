package pluginmgr

import (
	"fmt"

	"github.com/nomadish/nomadish/drivers/base"
)

// Capabilities forwards to the plugin when it reports them; a plugin that
// does not has none of the optional features.
func (p *proxy) Capabilities() (*base.Capabilities, error) {
	pl, err := p.current()
	if err != nil {
		return nil, err
	}
	c, ok := pl.(interface {
		Capabilities() (*base.Capabilities, error)
	})
	if !ok {
		return &base.Capabilities{}, nil
	}
	caps, err := c.Capabilities()
	return caps, p.check(err)
}

var _ base.TaskDiscoverer = (*proxy)(nil)

// UpdateTask forwards to the plugin (base.ResourceUpdater); a plugin
// without it answers base.ErrNotSupported.
func (p *proxy) UpdateTask(id string, res *base.Resources) error {
	pl, err := p.current()
	if err != nil {
		return err
	}
	u, ok := pl.(base.ResourceUpdater)
	if !ok {
		return fmt.Errorf("driver %q: %w", p.name, base.ErrNotSupported)
	}
	return p.check(u.UpdateTask(id, res))
}

// DiscoverTask forwards to the plugin (base.TaskDiscoverer); a plugin
// without it answers base.ErrNotSupported.
func (p *proxy) DiscoverTask(cfg *base.TaskConfig) (*base.TaskHandle, error) {
	pl, err := p.current()
	if err != nil {
		return nil, err
	}
	d, ok := pl.(base.TaskDiscoverer)
	if !ok {
		return nil, fmt.Errorf("driver %q: %w", p.name, base.ErrNotSupported)
	}
	h, err := d.DiscoverTask(cfg)
	return h, p.check(err)
}
