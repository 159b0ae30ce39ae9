package taskrunner

import (
	"net"
	"strconv"

	"github.com/nomadish/nomadish/structs"
)

// portEnv adds the variables of the ports the allocation holds on its node,
// as Nomad's task environment does for a group network in host mode:
//
//	NOMAD_IP_<label>, NOMAD_HOST_IP_<label>   the host IP
//	NOMAD_HOST_PORT_<label>                   the host port
//	NOMAD_ADDR_<label>, NOMAD_HOST_ADDR_<label>  ip:host port
//	NOMAD_PORT_<label>, NOMAD_ALLOC_PORT_<label> the port the task listens on:
//	                                          `to` when set, else the host port
//
// and, when the group has its own network namespace (bridge, cni: the
// client reported its address in NetworkStatus), as Nomad:
//
//	NOMAD_ALLOC_INTERFACE_<label>             the interface inside (eth0)
//	NOMAD_ALLOC_IP_<label>                    the allocation's address
//	NOMAD_ALLOC_ADDR_<label>                  that address:the task's port
//
// Characters of a label that are not valid in a variable name become "_".
func portEnv(env map[string]string, alloc *structs.Allocation) {
	ar := alloc.AllocatedResources
	if ar == nil {
		return
	}
	for _, p := range ar.Shared.Ports {
		label := envLabel(p.Label)
		host := strconv.Itoa(p.Value)
		addr := net.JoinHostPort(p.HostIP, host)
		env["NOMAD_IP_"+label] = p.HostIP
		env["NOMAD_HOST_IP_"+label] = p.HostIP
		env["NOMAD_HOST_PORT_"+label] = host
		env["NOMAD_ADDR_"+label] = addr
		env["NOMAD_HOST_ADDR_"+label] = addr
		task := host
		if p.To > 0 {
			task = strconv.Itoa(p.To)
		}
		env["NOMAD_PORT_"+label] = task
		env["NOMAD_ALLOC_PORT_"+label] = task
		if ns := alloc.NetworkStatus; ns != nil && ns.Address != "" {
			env["NOMAD_ALLOC_INTERFACE_"+label] = ns.InterfaceName
			env["NOMAD_ALLOC_IP_"+label] = ns.Address
			env["NOMAD_ALLOC_ADDR_"+label] = net.JoinHostPort(ns.Address, task)
		}
	}
}

// envLabel makes a port label usable in a variable name.
func envLabel(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}
