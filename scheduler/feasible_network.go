package scheduler

import (
	"fmt"

	"github.com/nomadish/nomadish/structs"
)

// defaultHostNetwork is the host_network every node has: its own address.
const defaultHostNetwork = "default"

// networkChecker accepts nodes that can give the group its network: the
// mode's support (bridge: the client fingerprinted the bridge plugins;
// cni/<name>: the user's conflist <name>), found as a NodeNetworks entry
// of that Mode, and an address for every port's host_network (a
// NodeNetworks address with that Alias). Groups in host mode without
// host_network ports (nearly all) cost one boolean test per node.
type networkChecker struct {
	group  string
	set    bool
	active bool           // the group asks for a mode or a host network
	mode   string         // "" for host and none, which every node has
	ports  []structs.Port // ports naming a host_network other than default
}

func (c *networkChecker) setTaskGroup(tg *structs.TaskGroup) {
	if c.set && c.group == tg.Name {
		return
	}
	c.group, c.set, c.active, c.mode, c.ports = tg.Name, true, false, "", c.ports[:0]
	for _, nw := range tg.Networks {
		if nw == nil {
			continue
		}
		if m := nw.Mode; m != "" && m != structs.NetworkModeHost && m != structs.NetworkModeNone {
			c.mode = m
		}
		for _, list := range [][]structs.Port{nw.ReservedPorts, nw.DynamicPorts} {
			for _, p := range list {
				if p.HostNetwork != "" && p.HostNetwork != defaultHostNetwork {
					c.ports = append(c.ports, p)
				}
			}
		}
	}
	c.active = c.mode != "" || len(c.ports) > 0
}

func (c *networkChecker) Feasible(n *structs.Node) (bool, string) {
	if !c.active {
		return true, ""
	}
	if c.mode != "" && !nodeHasNetworkMode(n, c.mode) {
		return false, missingMode(c.mode)
	}
	for _, p := range c.ports {
		if _, ok := hostNetworkAddress(n, p.HostNetwork); !ok {
			return false, missingHostNetwork(p)
		}
	}
	return true, ""
}

// explain reports the missing mode and every port whose host network the
// node lacks.
func (c *networkChecker) explain(n *structs.Node, _ *structs.TaskGroup) []string {
	var out []string
	if c.mode != "" && !nodeHasNetworkMode(n, c.mode) {
		out = append(out, missingMode(c.mode))
	}
	for _, p := range c.ports {
		if _, ok := hostNetworkAddress(n, p.HostNetwork); !ok {
			out = append(out, missingHostNetwork(p))
		}
	}
	return out
}

func missingMode(mode string) string { return fmt.Sprintf("missing network mode %q", mode) }

func missingHostNetwork(p structs.Port) string {
	return fmt.Sprintf("missing host network %q for port %q", p.HostNetwork, p.Label)
}

// nodeHasNetworkMode reports whether the node fingerprinted network mode.
func nodeHasNetworkMode(n *structs.Node, mode string) bool {
	if n.NodeResources == nil {
		return false
	}
	for _, nw := range n.NodeResources.NodeNetworks {
		if nw != nil && nw.Mode == mode {
			return true
		}
	}
	return false
}

// hostNetworkAddress returns the node's address of host network alias
// (the first one, as Nomad); "default" falls back to the node's address.
func hostNetworkAddress(n *structs.Node, alias string) (string, bool) {
	if n.NodeResources != nil {
		for _, nw := range n.NodeResources.NodeNetworks {
			if nw == nil {
				continue
			}
			for _, a := range nw.Addresses {
				if a.Alias == alias && a.Address != "" {
					return a.Address, true
				}
			}
		}
	}
	if alias == "" || alias == defaultHostNetwork {
		return n.NetworkIP(), true
	}
	return "", false
}
