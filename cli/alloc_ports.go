package cli

import (
	"fmt"
	"io"
	"net"
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// printAllocAddresses prints the ports an allocation holds, as Nomad's
// `alloc status` does:
//
//	Allocation Addresses (mode = "host"):
//	Label  Dynamic  Address
//	*http  yes      10.0.0.7:23456
//	*db    no       10.0.0.7:8080 -> 80
//
// Nothing for an allocation without ports.
func printAllocAddresses(w io.Writer, a *structs.Allocation) {
	if a.AllocatedResources == nil || len(a.AllocatedResources.Shared.Ports) == 0 {
		return
	}
	mode, dynamic := structs.NetworkModeHost, map[string]bool{}
	for _, n := range a.AllocatedResources.Shared.Networks {
		if n.Mode != "" {
			mode = n.Mode
		}
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
