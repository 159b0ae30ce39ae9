package cli

import (
	"fmt"
	"io"
	"net"
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// printAllocAddresses prints the ports an allocation holds, in the network
// mode its group uses, as Nomad's `alloc status` does, and in bridge and
// CNI modes the address the client gave the allocation's namespace:
//
//	Allocation Addresses (mode = "bridge"):
//	Label  Dynamic  Address
//	*http  yes      10.0.0.7:23456 -> 8080
//	*db    no       10.0.0.7:8080 -> 80
//
//	Allocation Network: 172.26.64.12 (eth0)
//
// Nothing for a host-mode allocation without ports.
func printAllocAddresses(w io.Writer, a *structs.Allocation) {
	mode := allocNetworkMode(a)
	if a.AllocatedResources != nil && len(a.AllocatedResources.Shared.Ports) > 0 {
		dynamic := map[string]bool{}
		nets := a.AllocatedResources.Shared.Networks
		if a.Job != nil {
			if tg := a.Job.LookupTaskGroup(a.TaskGroup); tg != nil {
				nets = append(append([]*structs.NetworkResource(nil), nets...), tg.Networks...)
			}
		}
		for _, n := range nets {
			for _, p := range n.DynamicPorts {
				dynamic[p.Label] = true
			}
		}
		fmt.Fprintf(w, "\nAllocation Addresses (mode = %q):\n", mode)
		rows := [][]string{{"Label", "Dynamic", "Address"}}
		for _, p := range a.AllocatedResources.Shared.Ports {
			addr := net.JoinHostPort(p.HostIP, strconv.Itoa(p.Value))
			if p.To > 0 && p.To != p.Value {
				addr += " -> " + strconv.Itoa(p.To)
			}
			dyn := "no"
			if dynamic[p.Label] {
				dyn = "yes"
			}
			rows = append(rows, []string{"*" + p.Label, dyn, addr})
		}
		table(w, rows)
	}
	if ns := a.NetworkStatus; ns != nil && ns.Address != "" {
		fmt.Fprintf(w, "\nAllocation Network: %s", ns.Address)
		if ns.InterfaceName != "" {
			fmt.Fprintf(w, " (%s)", ns.InterfaceName)
		}
		fmt.Fprintln(w)
	}
}

// allocNetworkMode is the network mode of the allocation's group: its
// job's group (which has it even without ports), else its allocated
// networks', else host.
func allocNetworkMode(a *structs.Allocation) string {
	if a.Job != nil {
		if tg := a.Job.LookupTaskGroup(a.TaskGroup); tg != nil && len(tg.Networks) > 0 {
			return tg.NetworkMode()
		}
	}
	if a.AllocatedResources != nil {
		for _, n := range a.AllocatedResources.Shared.Networks {
			if n != nil && n.Mode != "" {
				return n.Mode
			}
		}
	}
	return structs.NetworkModeHost
}

// printNodeNetwork prints the node's address, dynamic port range and
// reserved host ports (`node status -verbose`).
func printNodeNetwork(w io.Writer, n *structs.Node) {
	lo, hi := n.DynamicPortRange()
	reserved := "<none>"
	if r := n.ReservedResources; r != nil && r.Networks.ReservedHostPorts != "" {
		reserved = r.Networks.ReservedHostPorts
	}
	fmt.Fprintln(w, "\nNode Network")
	table(w, [][]string{{"IP", "Dynamic Ports", "Reserved Ports"}, {orNone(n.NetworkIP()), fmt.Sprintf("%d-%d", lo, hi), reserved}})
}
