package client

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nomadish/nomadish/client/fingerprint"
	"github.com/nomadish/nomadish/structs"
)

// loadOrCreateID returns the ID stored in file, creating a new one if absent.
func loadOrCreateID(file string) (string, error) {
	if b, err := os.ReadFile(file); err == nil {
		if id := strings.TrimSpace(string(b)); id != "" {
			return id, nil
		}
	} else if !os.IsNotExist(err) {
		return "", fmt.Errorf("reading %s: %w", file, err)
	}
	id := structs.GenerateUUID()
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return "", err
	}
	if err := os.WriteFile(file, []byte(id), 0o600); err != nil {
		return "", fmt.Errorf("writing %s: %w", file, err)
	}
	return id, nil
}

// buildNode assembles the node from the fingerprint and the config.
func (c *Client) buildNode(fp *fingerprint.Result, id, secret string) *structs.Node {
	name := c.cfg.NodeName
	if name == "" {
		name = fp.Attributes["unique.hostname"]
	}
	meta := mergeMeta(c.cfg.Meta, c.storedNodeMeta()) // node_meta.go
	reserved := &structs.NodeReservedResources{
		Cpu:      structs.NodeReservedCpuResources{ReservedCpuCores: fp.ReservedCores},
		Networks: structs.NodeReservedNetworkResources{ReservedHostPorts: c.cfg.ReservedPorts},
	}
	return &structs.Node{
		ID:                    id,
		SecretID:              secret,
		Datacenter:            c.cfg.Datacenter,
		Name:                  name,
		HTTPAddr:              c.cfg.HTTPAddr,
		NodeClass:             c.cfg.NodeClass,
		NodePool:              nodePoolOrDefault(c.cfg.NodePool),
		Attributes:            fp.Attributes,
		Meta:                  meta,
		NodeResources:         withPortRange(fp.Resources, c.cfg),
		ReservedResources:     reserved,
		Drivers:               map[string]*structs.DriverInfo{},
		HostVolumes:           hostVolumes(c.cfg.HostVolumes),
		Status:                structs.NodeStatusReady,
		SchedulingEligibility: structs.NodeSchedulingEligible,
	}
}

// refreshDrivers copies the plugin manager's driver infos and attributes
// into the node. Caller holds nodeMu.
func (c *Client) refreshDrivers() {
	for k := range c.node.Attributes {
		if strings.HasPrefix(k, "driver.") {
			delete(c.node.Attributes, k)
		}
	}
	for k, v := range c.plugins.Attributes() {
		c.node.Attributes[k] = v
	}
	c.node.Drivers = c.plugins.Infos()
}

// nodePoolOrDefault is the pool a node registers in: the configured one,
// else "default".
func nodePoolOrDefault(p string) string {
	if p == "" {
		return structs.NodePoolDefault
	}
	return p
}
