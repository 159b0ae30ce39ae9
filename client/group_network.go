package client

import (
	"context"
	"path/filepath"
	"time"

	"github.com/nomadish/nomadish/client/allocrunner"
	"github.com/nomadish/nomadish/client/network"
	"github.com/nomadish/nomadish/drivers/base"
)

var _ allocrunner.Networker = (*network.Manager)(nil)

// networkConfig is the client's CNI configuration with its defaults and
// this client's own libcni cache (<state_dir>/cni).
func (c *Config) networkConfig() network.Config {
	nc := c.Network.WithDefaults()
	if nc.CacheDir == "" {
		nc.CacheDir = filepath.Join(c.StateDir, "cni")
	}
	return nc
}

// networkManagerFor returns the named driver as a base.NetworkManager when
// it creates its groups' namespaces itself (Capabilities.MustInitiateNetwork:
// docker); the alloc runner then asks it for the namespace
// (allocrunner.Config.NetworkManagerFor).
func (c *Client) networkManagerFor(name string) (base.NetworkManager, bool) {
	drv, err := c.plugins.Driver(name)
	if err != nil {
		return nil, false
	}
	nm, ok := drv.(base.NetworkManager)
	if !ok {
		return nil, false
	}
	cp, ok := drv.(interface {
		Capabilities() (*base.Capabilities, error)
	})
	if !ok {
		return nil, false
	}
	caps, err := cp.Capabilities()
	if err != nil || caps == nil || !caps.MustInitiateNetwork {
		return nil, false
	}
	return nm, true
}

// sweepNetworks runs once at start, after the stored allocations were
// restored: a network record whose allocation this client no longer has
// (it crashed between removing the allocation and tearing its network
// down) is torn down now. Only this client's records are looked at, so
// agents sharing the machine never remove each other's namespaces.
func (c *Client) sweepNetworks() {
	ids, err := c.db.NetworkAllocIDs()
	if err != nil {
		c.logger.Warn("listing network records", "error", err)
		return
	}
	for _, id := range ids {
		if c.runner(id) != nil {
			continue
		}
		var rec network.Record
		if ok, err := c.db.GetNetwork(id, &rec); err != nil || !ok {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		nm := network.NamedManager{}
		if rec.Driver != "" {
			if m, ok := c.networkManagerFor(rec.Driver); ok {
				nm = network.NamedManager{Driver: rec.Driver, Manager: m}
			}
		}
		err := c.net.Teardown(ctx, &rec, nm)
		cancel()
		if err != nil {
			c.logger.Warn("tearing down the network of a gone allocation", "alloc_id", id, "netns", rec.NSPath, "error", err)
			continue
		}
		c.logger.Info("tore down the network of a gone allocation", "alloc_id", id, "netns", rec.NSPath)
		if err := c.db.DeleteNetwork(id); err != nil {
			c.logger.Warn("deleting network record", "alloc_id", id, "error", err)
		}
	}
}
