package fingerprint

import (
	"context"
	"os"
	"sort"

	"github.com/nomadish/nomadish/client/network"
	"github.com/nomadish/nomadish/structs"
)

// fingerprintNodeNetworks fills NodeResources.NodeNetworks: the node's
// default address, the host_network blocks' addresses, {Mode: "bridge"}
// when bridge mode can work here (with plugins.cni.version.<plugin>
// attributes), and {Mode: "cni/<name>"} for each conflist in
// cni_config_dir. Runs after fingerprintNetwork.
func fingerprintNodeNetworks(cfg *Config, r *Result) error {
	list := cfg.Interfaces
	if list == nil {
		list = Interfaces
	}
	ifaces, err := list()
	if err != nil {
		ifaces = nil // the default address stays without its device
	}
	nets := []*structs.NodeNetworkResource{defaultNetwork(ifaces, r.Attributes["unique.network.ip-address"])}
	hn, err := HostNetworkResources(ifaces, cfg.HostNetworks)
	if err != nil {
		return err
	}
	for _, n := range hn { // one entry per device: the default's gains its aliases
		if n.Device != "" && n.Device == nets[0].Device {
			nets[0].Addresses = append(nets[0].Addresses, n.Addresses...)
			continue
		}
		nets = append(nets, n)
	}
	if cfg.CNI != nil {
		nets = append(nets, cniNetworks(*cfg.CNI, r)...)
	}
	r.Resources.NodeNetworks = nets
	return nil
}

// cniNetworks are the bridge and cni/<name> modes this host offers (none
// unless the agent runs as root: it could not create namespaces).
func cniNetworks(c network.Config, r *Result) []*structs.NodeNetworkResource {
	var out []*structs.NodeNetworkResource
	for plugin, v := range c.PluginVersions(context.Background()) {
		r.Attributes["plugins.cni.version."+plugin] = v
	}
	if os.Geteuid() != 0 {
		return nil
	}
	if ok, _ := c.BridgeAvailable(); ok {
		out = append(out, &structs.NodeNetworkResource{Mode: structs.NetworkModeBridge})
	}
	lists, err := network.ConflistNames(c.WithDefaults().ConfigDir)
	if err != nil {
		return out
	}
	names := make([]string, 0, len(lists))
	for name := range lists {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		out = append(out, &structs.NodeNetworkResource{Mode: structs.NetworkModeCNIPrefix + name})
	}
	return out
}
