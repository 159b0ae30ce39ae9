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
// when bridge mode can work here, and {Mode: "cni/<name>"} for each conflist in
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

// CNIVersionAttributes are the plugins.cni.version.<plugin> attributes of
// the plugins in the CNI path. They take tens of milliseconds (each plugin
// is run once), so the client adds them after it started, not on the
// agent's ready path (client/cni_versions.go).
func CNIVersionAttributes(ctx context.Context, c network.Config) map[string]string {
	out := map[string]string{}
	for plugin, v := range c.PluginVersions(ctx) {
		out["plugins.cni.version."+plugin] = v
	}
	return out
}
