package fingerprint

import (
	"fmt"
	"net"
	"sort"

	"github.com/nomadish/nomadish/structs"
)

// HostNetwork is one client { host_network "name" { cidr interface
// reserved_ports } } block: the addresses of the machine that ports with
// `host_network = "name"` bind to. An address is in it when it is in
// CIDR (if set) and on Interface (if set).
type HostNetwork struct {
	Name          string
	CIDR          string
	Interface     string
	ReservedPorts string
}

// Iface is a network interface of the machine with its addresses.
type Iface struct {
	Name  string
	MAC   string
	Addrs []*net.IPNet
}

// Interfaces lists the machine's interfaces (net.Interfaces).
func Interfaces() ([]Iface, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	out := make([]Iface, 0, len(ifs))
	for _, i := range ifs {
		addrs, err := i.Addrs()
		if err != nil {
			continue
		}
		f := Iface{Name: i.Name, MAC: i.HardwareAddr.String()}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				f.Addrs = append(f.Addrs, n)
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// HostNetworkResources returns the node networks of the host_network
// blocks: one entry per interface holding a matching address, each address
// with Alias = the block's name (a block matching nothing adds nothing).
// Sorted by device. Pure; a malformed CIDR is an error naming the block.
func HostNetworkResources(ifaces []Iface, nets []HostNetwork) ([]*structs.NodeNetworkResource, error) {
	byDev := map[string]*structs.NodeNetworkResource{}
	for _, hn := range nets {
		var cidr *net.IPNet
		if hn.CIDR != "" {
			_, n, err := net.ParseCIDR(hn.CIDR)
			if err != nil {
				return nil, fmt.Errorf("host_network %q: cidr %q: %v", hn.Name, hn.CIDR, err)
			}
			cidr = n
		}
		for _, f := range ifaces {
			if hn.Interface != "" && f.Name != hn.Interface {
				continue
			}
			for _, a := range f.Addrs {
				if (cidr != nil && !cidr.Contains(a.IP)) || a.IP.IsLinkLocalUnicast() {
					continue
				}
				nr := byDev[f.Name]
				if nr == nil {
					nr = &structs.NodeNetworkResource{Mode: structs.NetworkModeHost, Device: f.Name, MacAddress: f.MAC}
					byDev[f.Name] = nr
				}
				nr.Addresses = append(nr.Addresses, structs.NodeNetworkAddress{
					Family: family(a.IP), Alias: hn.Name, Address: a.IP.String(), ReservedPorts: hn.ReservedPorts,
				})
			}
		}
	}
	out := make([]*structs.NodeNetworkResource, 0, len(byDev))
	for _, nr := range byDev {
		out = append(out, nr)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Device < out[j].Device })
	return out, nil
}

// defaultNetwork is the node network of the node's own address (Alias
// "default"), on the interface holding it.
func defaultNetwork(ifaces []Iface, ip string) *structs.NodeNetworkResource {
	nr := &structs.NodeNetworkResource{Mode: structs.NetworkModeHost,
		Addresses: []structs.NodeNetworkAddress{{Family: "ipv4", Alias: "default", Address: ip}}}
	for _, f := range ifaces {
		for _, a := range f.Addrs {
			if a.IP.String() == ip {
				nr.Device, nr.MacAddress = f.Name, f.MAC
			}
		}
	}
	return nr
}

func family(ip net.IP) string {
	if ip.To4() != nil {
		return "ipv4"
	}
	return "ipv6"
}
