package structs

import (
	"fmt"
	"net"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Network defaults and limits, as in Nomad.
const (
	DefaultMinDynamicPort = 20000
	DefaultMaxDynamicPort = 32000
	MaxValidPort          = 65535

	// Network modes of a group (Nomad's strings). Host: the tasks share
	// the node's network namespace. Bridge: the group gets its own
	// namespace on the client's bridge (CNI). None: its own namespace with
	// loopback only. "cni/<name>": its own namespace set up by the user's
	// CNI conflist <name>.
	NetworkModeHost      = "host"
	NetworkModeBridge    = "bridge"
	NetworkModeNone      = "none"
	NetworkModeCNIPrefix = "cni/"

	// The dimensions a port failure is counted under (Nomad's strings).
	DimPortCollision    = "network: reserved port collision"
	DimDynamicPortsFull = "network: dynamic port selection failed"
)

// NetworkResource is a group's network ask (the `network` block) or, on a
// node, one of its network interfaces (Nomad's JSON shape).
type NetworkResource struct {
	Mode          string
	Device        string
	CIDR          string
	IP            string
	Hostname      string `json:",omitempty"`
	MBits         int
	DNS           *DNSConfig `json:",omitempty"`
	ReservedPorts []Port     // static ports: the host port is Value
	DynamicPorts  []Port     // the scheduler picks Value in the node's range
}

// NodeNetworkResource is one of a node's networks (Nomad's
// NodeResources.NodeNetworks): a host interface with its addresses, or the
// bridge mode the client can set up (Mode "bridge", no device).
type NodeNetworkResource struct {
	Mode       string
	Device     string
	MacAddress string
	Speed      int
	Addresses  []NodeNetworkAddress
}

// NodeNetworkAddress is an address of a node network; Alias is the
// host_network name ports select it by ("default" for the node's address).
type NodeNetworkAddress struct {
	Family        string
	Alias         string
	Address       string
	ReservedPorts string
	Gateway       string
}

// AllocNetworkStatus is the network the client set up for an allocation
// (bridge and CNI modes): the interface and address inside its namespace.
type AllocNetworkStatus struct {
	InterfaceName string
	Address       string
	AddressIPv6   string `json:",omitempty"`
	DNS           *DNSConfig
}

// DNSConfig is a network's DNS settings (kept, not applied in host mode).
type DNSConfig struct {
	Servers  []string
	Searches []string
	Options  []string
}

// Port is one labelled port of a network. Value is the host port (set by
// the job for a static port, by the scheduler for a dynamic one); To is the
// port the task listens on inside its network (0: the host port).
type Port struct {
	Label       string
	Value       int
	To          int
	HostNetwork string
}

// AllocatedPortMapping is a port an allocation holds on its node.
type AllocatedPortMapping struct {
	Label  string
	Value  int // host port
	To     int // the task's port (0: Value)
	HostIP string
}

// NodeReservedNetworkResources is the host ports an operator keeps back
// (client { reserved { reserved_ports = "22,80,8000-8100" } }).
type NodeReservedNetworkResources struct {
	ReservedHostPorts string
}

// HasNetworks reports whether the group asks for any port.
func (tg *TaskGroup) HasNetworks() bool {
	for _, n := range tg.Networks {
		if n != nil && len(n.ReservedPorts)+len(n.DynamicPorts) > 0 {
			return true
		}
	}
	return false
}

// validateNetworks checks a group's network blocks: one network, a known
// mode (host, bridge, none, cni/<name>), a hostname only outside host mode,
// DNS servers that are IP addresses, unique labels, static ports in range
// and not repeated, to ports in range (-1, "the host port", in bridge mode
// only).
func (tg *TaskGroup) validateNetworks(errs *MultiError) {
	if len(tg.Networks) > 1 {
		errs.Add(fmt.Errorf("group %q: only one network block is allowed", tg.Name))
	}
	labels := map[string]bool{}
	static := map[int]string{}
	for _, n := range tg.Networks {
		if n == nil {
			continue
		}
		if msg := NetworkModeProblem(n.Mode); msg != "" {
			errs.Add(fmt.Errorf("group %q: %s", tg.Name, msg))
		}
		if msg := HostnameProblem(n.Mode, n.Hostname); msg != "" {
			errs.Add(fmt.Errorf("group %q: %s", tg.Name, msg))
		}
		if n.DNS != nil {
			for _, srv := range n.DNS.Servers {
				if msg := DNSServerProblem(srv); msg != "" {
					errs.Add(fmt.Errorf("group %q: %s", tg.Name, msg))
				}
			}
		}
		for _, p := range append(append([]Port(nil), n.ReservedPorts...), n.DynamicPorts...) {
			if p.Label == "" {
				errs.Add(fmt.Errorf("group %q: port with no label", tg.Name))
			} else if labels[p.Label] {
				errs.Add(fmt.Errorf("group %q: port label %q defined more than once", tg.Name, p.Label))
			}
			labels[p.Label] = true
			if msg := PortToProblem(n.Mode, p.To); msg != "" {
				errs.Add(fmt.Errorf("group %q: port %q: %s", tg.Name, p.Label, msg))
			}
		}
		for _, p := range n.ReservedPorts {
			if p.Value < 1 || p.Value > MaxValidPort {
				errs.Add(fmt.Errorf("group %q: port %q: static port %d out of range [1, %d]", tg.Name, p.Label, p.Value, MaxValidPort))
				continue
			}
			if other, ok := static[p.Value]; ok {
				errs.Add(fmt.Errorf("group %q: port %q: static port %d already used by port %q", tg.Name, p.Label, p.Value, other))
			}
			static[p.Value] = p.Label
		}
	}
}

// NetworkMode returns the group's network mode: its network block's, host
// when it has none or leaves the mode out.
func (tg *TaskGroup) NetworkMode() string {
	for _, n := range tg.Networks {
		if n != nil && n.Mode != "" {
			return n.Mode
		}
	}
	return NetworkModeHost
}

// NetworkModeProblem says what is wrong with a network mode ("" : nothing;
// the empty mode is host).
func NetworkModeProblem(mode string) string {
	switch {
	case mode == "", mode == NetworkModeHost, mode == NetworkModeBridge, mode == NetworkModeNone:
		return ""
	case strings.HasPrefix(mode, NetworkModeCNIPrefix):
		if strings.TrimSpace(strings.TrimPrefix(mode, NetworkModeCNIPrefix)) == "" {
			return fmt.Sprintf("network mode %q needs the name of a CNI network after %q (like \"cni/mynet\")", mode, NetworkModeCNIPrefix)
		}
		return ""
	}
	return fmt.Sprintf("network mode %q must be %q, %q, %q or %q<name>", mode, NetworkModeHost, NetworkModeBridge, NetworkModeNone, NetworkModeCNIPrefix)
}

// HostnameProblem says what is wrong with a network's hostname in mode
// ("" : nothing): tasks in host mode have the node's hostname, and a set one
// must be a DNS name (interpolations are left to the client).
func HostnameProblem(mode, hostname string) string {
	if hostname == "" {
		return ""
	}
	if mode == "" || mode == NetworkModeHost {
		return fmt.Sprintf("hostname %q needs a network namespace of the group's own: it cannot be set in %q mode", hostname, NetworkModeHost)
	}
	if strings.Contains(hostname, "${") {
		return ""
	}
	if len(hostname) > 253 || !hostnameRE.MatchString(hostname) {
		return fmt.Sprintf("hostname %q is not a valid DNS name", hostname)
	}
	return ""
}

var hostnameRE = regexp.MustCompile(`^(?i:[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.(?i:[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?))*\.?$`)

// DNSServerProblem says what is wrong with a dns server ("" : nothing): it
// must be an IP address (interpolations are left to the client).
func DNSServerProblem(server string) string {
	if strings.Contains(server, "${") || net.ParseIP(server) != nil {
		return ""
	}
	return fmt.Sprintf("dns server %q is not an IP address", server)
}

// PortToProblem says what is wrong with a port's to in the network mode
// ("" : nothing): 0 to 65535, or -1 in bridge mode ("the host port").
func PortToProblem(mode string, to int) string {
	switch {
	case to == -1 && mode == NetworkModeBridge:
		return ""
	case to == -1:
		return fmt.Sprintf("to = -1 (the host port) is only valid in %q mode", NetworkModeBridge)
	case to < 0 || to > MaxValidPort:
		return fmt.Sprintf("to %d out of range [0, %d] (or -1 in bridge mode)", to, MaxValidPort)
	}
	return ""
}

// DynamicPortRange returns the node's range for dynamic ports (Nomad's
// 20000-32000 unless the client configures it).
func (n *Node) DynamicPortRange() (lo, hi int) {
	lo, hi = DefaultMinDynamicPort, DefaultMaxDynamicPort
	if r := n.NodeResources; r != nil && r.MinDynamicPort > 0 && r.MaxDynamicPort >= r.MinDynamicPort {
		lo, hi = r.MinDynamicPort, r.MaxDynamicPort
	}
	return lo, hi
}

// NetworkIP returns the address allocations on the node bind their ports
// to: the IP of its first network ("" when it has none).
func (n *Node) NetworkIP() string {
	if r := n.NodeResources; r != nil {
		for _, nw := range r.Networks {
			if nw != nil && nw.IP != "" {
				return nw.IP
			}
		}
	}
	if ip := n.Attributes["unique.network.ip-address"]; ip != "" {
		return ip
	}
	return ""
}

// ReservedHostPorts returns the host ports the node's operator keeps back.
// A malformed list (the client validates it) reserves nothing.
func (n *Node) ReservedHostPorts() []int {
	if n.ReservedResources == nil || n.ReservedResources.Networks.ReservedHostPorts == "" {
		return nil
	}
	ports, err := ParsePortRanges(n.ReservedResources.Networks.ReservedHostPorts)
	if err != nil {
		return nil
	}
	return ports
}

// ParsePortRanges parses "22,80,8000-8010" into sorted, distinct ports.
func ParsePortRanges(spec string) ([]int, error) {
	seen := map[int]bool{}
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil {
			return nil, fmt.Errorf("invalid port %q", part)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil {
				return nil, fmt.Errorf("invalid port range %q", part)
			}
		}
		if a < 1 || b > MaxValidPort || a > b {
			return nil, fmt.Errorf("port range %q out of [1, %d]", part, MaxValidPort)
		}
		for p := a; p <= b; p++ {
			seen[p] = true
		}
	}
	out := make([]int, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Ints(out)
	return out, nil
}

// portsFit reports whether the non-terminal allocations' host ports are
// distinct and clear of the node's reserved ports. Allocations without ports
// cost one length check each: a cluster without networks pays nothing.
func portsFit(node *Node, allocs []*Allocation) bool {
	var used map[int]bool // nil until some alloc holds a port
	for _, a := range allocs {
		if a.TerminalStatus() || a.AllocatedResources == nil || len(a.AllocatedResources.Shared.Ports) == 0 {
			continue
		}
		if used == nil {
			used = map[int]bool{}
			for _, p := range node.ReservedHostPorts() {
				used[p] = true
			}
		}
		if !AddHeldPorts(used, a) {
			return false
		}
	}
	return true
}

// AddHeldPorts adds the allocation's host ports to used (the ports already
// taken on its node, the node's reserved ones included) and reports whether
// they were all free: the port rule of the one fit check (AllocsFit), which
// the scheduler's port assignment shares. The caller skips terminal
// allocations.
func AddHeldPorts(used map[int]bool, a *Allocation) (free bool) {
	if a.AllocatedResources == nil {
		return true
	}
	free = true
	for _, p := range a.AllocatedResources.Shared.Ports {
		if used[p.Value] {
			free = false
		}
		used[p.Value] = true
	}
	return free
}
