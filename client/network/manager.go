package network

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/containernetworking/cni/libcni"

	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// Manager sets up and tears down allocations' networks. Safe for
// concurrent use (each call works on its own allocation).
type Manager struct {
	cfg Config
	cni *libcni.CNIConfig
}

// NewManager returns a manager for the client's configuration (defaults
// filled in for the empty fields).
func NewManager(cfg Config) *Manager {
	cfg = cfg.WithDefaults()
	return &Manager{cfg: cfg, cni: libcni.NewCNIConfigWithCacheDir(cfg.pluginDirs(), cfg.CacheDir, nil)}
}

// Config returns the manager's configuration.
func (m *Manager) Config() Config { return m.cfg }

// Request is an allocation's network ask.
type Request struct {
	AllocID string
	Mode    string // bridge, none or cni/<name>
	Ports   []structs.AllocatedPortMapping
	// Hostname is the group's network hostname ("" none).
	Hostname string
}

// Conflist returns the conflist of mode: the client's bridge conflist,
// loopback for none, the user's conflist for cni/<name>.
func (m *Manager) Conflist(mode string) ([]byte, error) {
	switch {
	case mode == structs.NetworkModeBridge:
		return BridgeConflist(m.cfg)
	case mode == structs.NetworkModeNone:
		return NoneConflist(), nil
	case strings.HasPrefix(mode, structs.NetworkModeCNIPrefix):
		return UserConflist(m.cfg.ConfigDir, strings.TrimPrefix(mode, structs.NetworkModeCNIPrefix))
	}
	return nil, fmt.Errorf("network mode %q has no namespace", mode)
}

// Setup creates the allocation's namespace (nm's, when a driver of the
// group manages networks; else a named one under NetnsDir) and runs CNI
// ADD in it. save is called with the record once the namespace exists
// (before ADD, so a crash during ADD leaves a record to tear down) and
// again after ADD. On failure what was made is torn down again.
func (m *Manager) Setup(ctx context.Context, req Request, nm NamedManager, save func(*Record) error) (*Record, error) {
	conf, err := m.Conflist(req.Mode)
	if err != nil {
		return nil, err
	}
	rec := &Record{AllocID: req.AllocID, Mode: req.Mode, ConfList: conf}
	if req.Mode != structs.NetworkModeNone {
		rec.Ports = PortMappings(req.Ports)
	}
	if nm.Manager != nil {
		spec, _, err := nm.Manager.CreateNetwork(req.AllocID, &base.NetworkCreateRequest{Hostname: req.Hostname})
		if err != nil {
			return nil, fmt.Errorf("driver %q creating the network: %w", nm.Driver, err)
		}
		rec.Driver, rec.NSPath, rec.Labels = nm.Driver, spec.Path, spec.Labels
	} else {
		rec.NSPath = NamespacePath(req.AllocID)
		err := CreateNamespace(rec.NSPath)
		if errors.Is(err, ErrNamespaceExists) {
			// Left by this client's crash between creating it and
			// recording it: the allocation is the caller's, so is its
			// namespace (never another agent's: alloc IDs are unique).
			if err = DeleteNamespace(rec.NSPath); err == nil {
				err = CreateNamespace(rec.NSPath)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	fail := func(err error) (*Record, error) {
		return nil, errors.Join(err, m.Teardown(context.WithoutCancel(ctx), rec, nm))
	}
	if err := save(rec); err != nil {
		return fail(fmt.Errorf("recording the network: %w", err))
	}
	st, err := m.cniAdd(ctx, rec)
	if err != nil {
		return fail(err)
	}
	rec.Added, rec.Status = true, st
	if err := save(rec); err != nil {
		return fail(fmt.Errorf("recording the network: %w", err))
	}
	return rec, nil
}

// Alive reports whether CNI ADD of rec succeeded and its namespace still
// exists, so a restarted client keeps it (no second ADD): its tasks may
// still run in it.
func (m *Manager) Alive(rec *Record) bool {
	return rec != nil && rec.Added && IsNamespace(rec.NSPath)
}

// Teardown runs CNI DEL (frees the IPAM lease, portmap and firewall rules)
// and removes the namespace: its driver's DestroyNetwork when a driver
// made it (nm must then be that driver's), else the named namespace. It
// goes on after an error and returns them all; what is already gone is not
// an error.
func (m *Manager) Teardown(ctx context.Context, rec *Record, nm NamedManager) error {
	var errs []error
	if len(rec.ConfList) > 0 && rec.NSPath != "" {
		if err := m.cniDel(ctx, rec); err != nil {
			errs = append(errs, err)
		}
	}
	switch {
	case rec.Driver != "" && nm.Manager != nil:
		if err := nm.Manager.DestroyNetwork(rec.AllocID, rec.Isolation()); err != nil {
			errs = append(errs, fmt.Errorf("driver %q destroying the network: %w", rec.Driver, err))
		}
	case rec.Driver != "":
		errs = append(errs, fmt.Errorf("driver %q that made the network is not available to destroy it", rec.Driver))
	case rec.NSPath != "":
		if err := DeleteNamespace(rec.NSPath); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// NamedManager is a driver's base.NetworkManager with the driver's name;
// the zero value means the client makes the namespace itself.
type NamedManager struct {
	Driver  string
	Manager base.NetworkManager
}
