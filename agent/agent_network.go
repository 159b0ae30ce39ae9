package agent

import (
	"github.com/nomadish/nomadish/agent/config"
	"github.com/nomadish/nomadish/client/fingerprint"
	"github.com/nomadish/nomadish/client/network"
)

// clientNetwork turns the client's bridge and CNI keys into the client's
// network configuration (empty values take client/network's defaults).
func clientNetwork(n config.NetworkConfig) network.Config {
	return network.Config{BridgeName: n.BridgeName, BridgeSubnet: n.BridgeSubnet, HairpinMode: n.BridgeHairpinMode,
		CNIPath: n.CNIPath, ConfigDir: n.CNIConfigDir}
}

// hostNetworks turns the host_network blocks into the fingerprint's.
func hostNetworks(in []config.HostNetwork) []fingerprint.HostNetwork {
	out := make([]fingerprint.HostNetwork, 0, len(in))
	for _, hn := range in {
		out = append(out, fingerprint.HostNetwork{Name: hn.Name, CIDR: hn.CIDR, Interface: hn.Interface, ReservedPorts: hn.ReservedPorts})
	}
	return out
}
