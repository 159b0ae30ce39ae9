package scheduler_test

import (
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// Network arguments of the scenario commands (testdata/network_*.txt):
//
//	node add ... netmodes=bridge,cni/mynet hostnets=public:192.168.1.5
//	    (the modes the client fingerprinted; host networks alias:address)
//	job add ... mode=bridge hostnet=http:public
//	    (the group's network mode; the host_network of a port of
//	    static=/dynamic=, by label)

// nodeNetworkArgs fills the node's NodeNetworks.
func (sc *scenario) nodeNetworkArgs(n *structs.Node, args map[string]string) {
	for _, m := range list(args["netmodes"]) {
		n.NodeResources.NodeNetworks = append(n.NodeResources.NodeNetworks, &structs.NodeNetworkResource{Mode: m})
	}
	for _, spec := range list(args["hostnets"]) {
		alias, addr, _ := strings.Cut(spec, ":")
		n.NodeResources.NodeNetworks = append(n.NodeResources.NodeNetworks, &structs.NodeNetworkResource{
			Mode: "host", Device: "eth-" + alias,
			Addresses: []structs.NodeNetworkAddress{{Family: "ipv4", Alias: alias, Address: addr}},
		})
	}
}

// jobNetworkArgs sets the group's network mode and ports' host networks
// (after jobPortArgs made the network block).
func (sc *scenario) jobNetworkArgs(j *structs.Job, args map[string]string) {
	tg := j.TaskGroups[0]
	mode, hostnets := args["mode"], list(args["hostnet"])
	if mode == "" && len(hostnets) == 0 {
		return
	}
	if len(tg.Networks) == 0 {
		tg.Networks = []*structs.NetworkResource{{Mode: "host"}}
	}
	nw := tg.Networks[0]
	if mode != "" {
		nw.Mode = mode
	}
	for _, spec := range hostnets {
		label, alias, _ := strings.Cut(spec, ":")
		found := false
		for _, ports := range [][]structs.Port{nw.ReservedPorts, nw.DynamicPorts} {
			for i := range ports {
				if ports[i].Label == label {
					ports[i].HostNetwork, found = alias, true
				}
			}
		}
		if !found {
			sc.t.Fatalf("hostnet=%q: no port %q", spec, label)
		}
	}
}
