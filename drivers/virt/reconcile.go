package virt

import (
	"context"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/digitalocean/go-libvirt"

	"github.com/nomadish/nomadish/drivers/base"
)

// dangling reports whether a domain is an orphan: it carries the driver's
// metadata (m non-nil), no task this driver tracks is it, and the alloc dir
// its metadata names no longer exists (the client garbage-collected the
// allocation). Several agents may share libvirtd: a live agent's domains
// have their alloc dirs, so they are never dangling.
func dangling(m *meta, uuid string, tracked map[string]bool) bool {
	if m == nil || m.AllocDir == "" || tracked[uuid] {
		return false
	}
	_, err := os.Stat(m.AllocDir)
	return os.IsNotExist(err)
}

// parseMeta decodes the driver's <task> metadata element (libvirt returns
// it without its namespace).
func parseMeta(s string) (*meta, error) {
	var m meta
	dec := xml.NewDecoder(strings.NewReader(s))
	dec.DefaultSpace = MetadataNS
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return &m, nil
}

// domainMeta reads the driver's metadata of dom; nil (no error) when it has
// none (a domain the driver did not define).
func domainMeta(l *libvirt.Libvirt, dom libvirt.Domain) (*meta, error) {
	s, err := l.DomainGetMetadata(dom, int32(libvirt.DomainMetadataElement), libvirt.OptString{MetadataNS}, 0)
	if err != nil {
		var le libvirt.Error
		if errors.As(err, &le) && le.Code == uint32(libvirt.ErrNoDomainMetadata) {
			return nil, nil
		}
		return nil, err
	}
	return parseMeta(s)
}

// ReconcileDangling destroys and undefines the dangling domains (see
// dangling) and removes their work dirs; it returns their names. The
// periodic loop calls it; so can tests.
func (d *Driver) ReconcileDangling(ctx context.Context) ([]string, error) {
	l, err := d.conn.get()
	if err != nil {
		return nil, err
	}
	doms, _, err := l.ConnectListAllDomains(1, 0)
	if err != nil {
		return nil, fmt.Errorf("virt: listing domains: %w", err)
	}
	tracked := map[string]bool{}
	for _, t := range d.tasks.List() {
		tracked[t.state.UUID] = true
	}
	var removed []string
	for _, dom := range doms {
		if ctx.Err() != nil {
			return removed, ctx.Err()
		}
		if !strings.HasPrefix(dom.Name, "nomadish-") {
			continue
		}
		m, err := domainMeta(l, dom)
		if err != nil || !dangling(m, hex.EncodeToString(dom.UUID[:]), tracked) {
			continue
		}
		d.undefine(dom)
		_ = removeFiles(driverState{WorkDir: m.WorkDir, Disk: m.Disk})
		d.logger.Info("dangling domain removed", "domain", dom.Name, "alloc_dir", m.AllocDir)
		removed = append(removed, dom.Name)
	}
	return removed, nil
}

// reconcileLoop runs ReconcileDangling now and every period until ctx
// ends. Started by SetConfig; its next call stops it.
func (d *Driver) reconcileLoop(ctx context.Context, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		if _, err := d.ReconcileDangling(ctx); err != nil {
			d.logger.Debug("dangling domain reconcile", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

var _ base.TaskDiscoverer = (*Driver)(nil)

// DiscoverTask finds the running domain of cfg's alloc and task name by its
// name (DomainName), when its metadata names the same alloc, task and
// alloc dir, and re-attaches to it (RecoverTask). Anything else is
// ErrTaskNotFound.
func (d *Driver) DiscoverTask(cfg *base.TaskConfig) (*base.TaskHandle, error) {
	name := DomainName(cfg.AllocID, cfg.Name)
	notFound := func(why string) error {
		return fmt.Errorf("virt: task %s/%s: %w (%s)", cfg.AllocID, cfg.Name, base.ErrTaskNotFound, why)
	}
	l, err := d.conn.get()
	if err != nil {
		return nil, notFound(err.Error())
	}
	dom, err := l.DomainLookupByName(name)
	if err != nil {
		return nil, notFound("no domain " + name)
	}
	if state, _, err := l.DomainGetState(dom, 0); err != nil || libvirt.DomainState(state) != libvirt.DomainRunning {
		return nil, notFound("domain " + name + " is not running")
	}
	m, err := domainMeta(l, dom)
	if err != nil || m == nil || m.AllocID != cfg.AllocID || m.TaskName != cfg.Name || m.AllocDir != cfg.AllocDir {
		return nil, notFound("domain " + name + " is not this task's")
	}
	st := driverState{Domain: name, UUID: hex.EncodeToString(dom.UUID[:]), WorkDir: m.WorkDir,
		Disk: m.Disk, SeedISO: m.SeedISO, Console: m.WorkDir + "/console.log", StartedAt: time.Now()}
	c := *cfg
	c.ID = m.TaskID
	state, err := jsonState(st)
	if err != nil {
		return nil, err
	}
	h := &base.TaskHandle{Version: base.TaskHandleVersion, Config: &c, State: base.TaskStateRunning, DriverState: state}
	if err := d.RecoverTask(h); err != nil {
		return nil, err
	}
	return h, nil
}
