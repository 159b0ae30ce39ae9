package allocrunner

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/nomadish/nomadish/client/network"
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// The group network (bridge, none and cni/<name> modes): before the tasks
// start, the alloc runner gives the allocation its own network namespace
// and runs CNI ADD in it (client/network), records that in the client
// state, reports the address in Allocation.NetworkStatus and hands every
// task the namespace (base.TaskConfig.Network). Once every task is dead
// (not when the client merely shuts down) it runs CNI DEL and removes the
// namespace. A restarted client finds the record and keeps a namespace
// that is still there (no second ADD).

// networkSetupTimeout bounds CNI ADD and DEL.
const networkSetupTimeout = 2 * time.Minute

// Networker sets up and tears down allocations' networks
// (client/network.Manager satisfies it).
type Networker interface {
	Setup(ctx context.Context, req network.Request, nm network.NamedManager, save func(*network.Record) error) (*network.Record, error)
	Alive(rec *network.Record) bool
	Teardown(ctx context.Context, rec *network.Record, nm network.NamedManager) error
}

// networkState is the part of the state db that keeps network records
// (client/state.DB has it); a StateDB without it persists none.
type networkState interface {
	PutNetwork(allocID string, v any) error
	GetNetwork(allocID string, out any) (bool, error)
	DeleteNetwork(allocID string) error
}

// groupNetworkMode returns the group's network block and its mode when
// the group needs a namespace of its own ("" for host mode).
func groupNetworkMode(tg *structs.TaskGroup) (*structs.NetworkResource, string) {
	if tg == nil {
		return nil, ""
	}
	for _, n := range tg.Networks {
		if n == nil {
			continue
		}
		switch {
		case n.Mode == structs.NetworkModeBridge, n.Mode == structs.NetworkModeNone,
			strings.HasPrefix(n.Mode, structs.NetworkModeCNIPrefix):
			return n, n.Mode
		}
		return n, ""
	}
	return nil, ""
}

// setupNetwork runs on run's goroutine before the tasks start. A network
// recorded before a client restart that still exists is kept; one that is
// gone is torn down (its lease freed) and made again.
func (ar *AllocRunner) setupNetwork() error {
	tg := ar.currentGroup()
	nw, mode := groupNetworkMode(tg)
	if mode == "" {
		return nil
	}
	alloc := ar.Alloc()
	if rec := ar.loadNetwork(); rec != nil {
		if ar.cfg.Network != nil && ar.cfg.Network.Alive(rec) {
			ar.useNetwork(rec)
			return nil
		}
		ar.logger.Warn("recorded network namespace is gone; setting it up again", "netns", rec.NSPath)
		ar.teardownNetwork(rec)
	}
	if alloc.TerminalStatus() || ar.killed() {
		return nil // stopping: its tasks will not start
	}
	if ar.cfg.Network == nil {
		return fmt.Errorf("network mode %q: this client cannot set up group networks", mode)
	}
	ctx, cancel := context.WithTimeout(context.Background(), networkSetupTimeout)
	defer cancel()
	var ports []structs.AllocatedPortMapping
	if alloc.AllocatedResources != nil {
		ports = alloc.AllocatedResources.Shared.Ports
	}
	req := network.Request{AllocID: alloc.ID, Mode: mode, Ports: ports, Hostname: nw.Hostname}
	rec, err := ar.cfg.Network.Setup(ctx, req, ar.networkManager(tg), ar.saveNetwork)
	if err != nil {
		ar.deleteNetworkRecord()
		return fmt.Errorf("setting up network mode %q: %w", mode, err)
	}
	if err := network.WriteFiles(filepath.Join(ar.dir.Dir, "network"), rec, nw.Hostname, nw.DNS); err != nil {
		ar.teardownNetwork(rec)
		return err
	}
	if err := ar.saveNetwork(rec); err != nil {
		ar.logger.Error("persisting network", "error", err)
	}
	ar.logger.Info("network set up", "mode", mode, "netns", rec.NSPath, "address", addressOf(rec))
	ar.useNetwork(rec)
	return nil
}

// useNetwork keeps rec as the allocation's network and hands it to every
// task runner (before they run).
func (ar *AllocRunner) useNetwork(rec *network.Record) {
	ar.mu.Lock()
	ar.netRec = rec
	runners := make([]interface {
		SetNetwork(*base.NetworkIsolation, *structs.AllocNetworkStatus)
	}, 0, len(ar.tasks))
	for _, tr := range ar.tasks {
		runners = append(runners, tr)
	}
	ar.mu.Unlock()
	for _, tr := range runners {
		tr.SetNetwork(rec.Isolation(), rec.Status)
	}
}

// networkStatus is the status to report (nil without a group network).
func (ar *AllocRunner) networkStatus() *structs.AllocNetworkStatus {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	if ar.netRec == nil {
		return nil
	}
	return ar.netRec.Status
}

// releaseNetwork tears the allocation's network down once every task is
// dead; rec comes from the runner or, when it never set one up in this
// process, from the state.
func (ar *AllocRunner) releaseNetwork() {
	ar.mu.Lock()
	rec := ar.netRec
	ar.netRec = nil
	ar.mu.Unlock()
	if rec == nil {
		rec = ar.loadNetwork()
	}
	if rec != nil {
		ar.teardownNetwork(rec)
	}
}

// teardownNetwork runs CNI DEL and removes the namespace; the record goes
// only when that worked (a later client start retries: client/network_sweep.go).
func (ar *AllocRunner) teardownNetwork(rec *network.Record) {
	if ar.cfg.Network == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), networkSetupTimeout)
	defer cancel()
	if err := ar.cfg.Network.Teardown(ctx, rec, ar.managerOf(rec.Driver)); err != nil {
		ar.logger.Error("tearing down network", "netns", rec.NSPath, "error", err)
		return
	}
	ar.logger.Info("network torn down", "netns", rec.NSPath)
	ar.deleteNetworkRecord()
}

// networkManager returns the NetworkManager of the first driver of the
// group that manages networks (the zero value: the client's own).
func (ar *AllocRunner) networkManager(tg *structs.TaskGroup) network.NamedManager {
	if ar.cfg.NetworkManagerFor == nil {
		return network.NamedManager{}
	}
	for _, t := range tg.Tasks {
		if nm, ok := ar.cfg.NetworkManagerFor(t.Driver); ok {
			return network.NamedManager{Driver: t.Driver, Manager: nm}
		}
	}
	return network.NamedManager{}
}

// managerOf returns the NetworkManager of the named driver ("": none).
func (ar *AllocRunner) managerOf(driver string) network.NamedManager {
	if driver == "" || ar.cfg.NetworkManagerFor == nil {
		return network.NamedManager{}
	}
	if nm, ok := ar.cfg.NetworkManagerFor(driver); ok {
		return network.NamedManager{Driver: driver, Manager: nm}
	}
	return network.NamedManager{}
}

func (ar *AllocRunner) loadNetwork() *network.Record {
	ns, ok := ar.cfg.State.(networkState)
	if !ok || ar.cfg.State == nil {
		return nil
	}
	var rec network.Record
	found, err := ns.GetNetwork(ar.cfg.Alloc.ID, &rec)
	if err != nil {
		ar.logger.Error("reading network record", "error", err)
		return nil
	}
	if !found {
		return nil
	}
	return &rec
}

func (ar *AllocRunner) saveNetwork(rec *network.Record) error {
	if ns, ok := ar.cfg.State.(networkState); ok && ar.cfg.State != nil {
		return ns.PutNetwork(rec.AllocID, rec)
	}
	return nil
}

func (ar *AllocRunner) deleteNetworkRecord() {
	if ns, ok := ar.cfg.State.(networkState); ok && ar.cfg.State != nil {
		if err := ns.DeleteNetwork(ar.cfg.Alloc.ID); err != nil {
			ar.logger.Error("deleting network record", "error", err)
		}
	}
}

// killed reports whether Kill was called.
func (ar *AllocRunner) killed() bool {
	select {
	case <-ar.killCh:
		return true
	default:
		return false
	}
}

func addressOf(rec *network.Record) string {
	if rec.Status == nil {
		return ""
	}
	return rec.Status.Address
}
