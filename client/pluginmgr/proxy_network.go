package pluginmgr

import (
	"fmt"

	"github.com/nomadish/nomadish/drivers/base"
)

// NetworkManager returns the named driver as a base.NetworkManager when
// its plugin says it creates group namespaces itself
// (Capabilities.MustInitiateNetwork, docker); ok is false for the others,
// whose groups get a namespace the client creates. Like Driver, each call
// goes to the plugin's current process.
func (m *Manager) NetworkManager(name string) (nm base.NetworkManager, ok bool, err error) {
	if _, known := m.instances[name]; !known {
		return nil, false, fmt.Errorf("%w: %q", ErrUnknownDriver, name)
	}
	p := &proxy{m: m, name: name}
	caps, err := p.Capabilities()
	if err != nil {
		return nil, false, err
	}
	if !caps.MustInitiateNetwork {
		return nil, false, nil
	}
	return p, true, nil
}

var _ base.NetworkManager = (*proxy)(nil)

// CreateNetwork forwards to the plugin (base.NetworkManager); a plugin
// without it answers base.ErrNotSupported.
func (p *proxy) CreateNetwork(allocID string, req *base.NetworkCreateRequest) (*base.NetworkIsolation, bool, error) {
	pl, err := p.current()
	if err != nil {
		return nil, false, err
	}
	nm, ok := pl.(base.NetworkManager)
	if !ok {
		return nil, false, fmt.Errorf("driver %q: networks: %w", p.name, base.ErrNotSupported)
	}
	spec, created, err := nm.CreateNetwork(allocID, req)
	return spec, created, p.check(err)
}

// DestroyNetwork forwards to the plugin (base.NetworkManager).
func (p *proxy) DestroyNetwork(allocID string, spec *base.NetworkIsolation) error {
	pl, err := p.current()
	if err != nil {
		return err
	}
	nm, ok := pl.(base.NetworkManager)
	if !ok {
		return fmt.Errorf("driver %q: networks: %w", p.name, base.ErrNotSupported)
	}
	return p.check(nm.DestroyNetwork(allocID, spec))
}
