package config

import (
	"fmt"
	"net"
	"path/filepath"
	"regexp"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nomadish/nomadish/internal/hclutil"
	"github.com/nomadish/nomadish/internal/suggest"
	"github.com/nomadish/nomadish/structs"
)

// NetworkConfig is the client's group-network keys (Nomad's names; ""
// takes Nomad's default, applied by client/network: bridge "nomad", subnet
// 172.26.64.0/20, cni_path /opt/cni/bin plus Debian's /usr/lib/cni,
// cni_config_dir /opt/cni/config) (website/networking.md).
type NetworkConfig struct {
	BridgeName        string
	BridgeSubnet      string
	BridgeHairpinMode bool
	CNIPath           string
	CNIConfigDir      string
}

// HostNetwork is one client { host_network "name" { cidr interface
// reserved_ports } } block.
type HostNetwork struct {
	Name          string
	CIDR          string
	Interface     string
	ReservedPorts string
	rng           *hcl.Range // the block's label, for Validate
}

// networkFields lists the network keys (merge.go's fields).
func (c *Config) networkFields() []field {
	n := &c.Client.Network
	return []field{
		{"client.bridge_network_name", &n.BridgeName}, {"client.bridge_network_subnet", &n.BridgeSubnet},
		{"client.bridge_network_hairpin_mode", &n.BridgeHairpinMode},
		{"client.cni_path", &n.CNIPath}, {"client.cni_config_dir", &n.CNIConfigDir},
	}
}

// hostNetwork decodes one host_network block; a second block of a name
// in the same file is an error.
func (d *decoder) hostNetwork(b *hclsyntax.Block) {
	if len(b.Labels) != 1 {
		d.errorf(b.TypeRange, "Wrong number of labels", "A host_network block takes one label, the network's name.")
		return
	}
	hn := HostNetwork{Name: b.Labels[0]}
	keys := []string{"cidr", "interface", "reserved_ports"}
	for _, a := range hclutil.SortedAttrs(b.Body) {
		key := "client.host_network." + a.Name
		switch a.Name {
		case "cidr":
			d.evalInto(a, key, &hn.CIDR)
		case "interface":
			d.evalInto(a, key, &hn.Interface)
		case "reserved_ports":
			d.evalInto(a, key, &hn.ReservedPorts)
		default:
			d.errorf(a.NameRange, "Unsupported argument", "An argument named %q is not expected in a host_network block.%s",
				a.Name, suggest.DidYouMean(a.Name, keys))
		}
	}
	for _, nb := range b.Body.Blocks {
		d.errorf(nb.TypeRange, "Unsupported block type", "Blocks are not allowed in a host_network block.")
	}
	rng := b.LabelRanges[0]
	hn.rng = &rng
	for _, o := range d.cfg.Client.HostNetworks {
		if o.Name == hn.Name {
			d.errorf(rng, "Duplicate host_network", "A host_network named %q is already defined at %s.", hn.Name, hclutil.Pos(*o.rng))
			return
		}
	}
	d.cfg.Client.HostNetworks = append(d.cfg.Client.HostNetworks, hn)
}

// mergeHostNetworks returns base's host networks with o's over them by name.
func mergeHostNetworks(base, o []HostNetwork) []HostNetwork {
	return mergeByName(base, o, func(h HostNetwork) string { return h.Name })
}

// ifNameRE is what a Linux interface name may be.
var ifNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,15}$`)

// validateNetwork checks the bridge, CNI and host_network keys.
func (c *Config) validateNetwork(bad func(key, format string, args ...any)) {
	n := c.Client.Network
	if n.BridgeName != "" && !ifNameRE.MatchString(n.BridgeName) {
		bad("client.bridge_network_name", "must be an interface name (1-15 letters, digits, '_', '.', '-'), got %q", n.BridgeName)
	}
	if n.BridgeSubnet != "" {
		ip, ipn, err := net.ParseCIDR(n.BridgeSubnet)
		switch {
		case err != nil:
			bad("client.bridge_network_subnet", "must be a CIDR such as 172.26.64.0/20, got %q", n.BridgeSubnet)
		case ip.To4() == nil:
			bad("client.bridge_network_subnet", "must be an IPv4 subnet, got %q", n.BridgeSubnet)
		default:
			if ones, _ := ipn.Mask.Size(); ones > 29 {
				bad("client.bridge_network_subnet", "%q is too small (at most /29)", n.BridgeSubnet)
			}
		}
	}
	for _, dir := range filepath.SplitList(n.CNIPath) {
		if dir != "" && !filepath.IsAbs(dir) {
			bad("client.cni_path", "%q is not an absolute path", dir)
		}
	}
	if n.CNIConfigDir != "" && !filepath.IsAbs(n.CNIConfigDir) {
		bad("client.cni_config_dir", "must be an absolute path, got %q", n.CNIConfigDir)
	}
	for _, hn := range c.Client.HostNetworks {
		key := fmt.Sprintf("client.host_network[%q]", hn.Name)
		if hn.rng != nil {
			key = hclutil.Pos(*hn.rng) + ": " + key
		}
		if hn.CIDR == "" && hn.Interface == "" {
			bad(key, "needs a cidr or an interface")
		}
		if hn.CIDR != "" {
			if _, _, err := net.ParseCIDR(hn.CIDR); err != nil {
				bad(key+".cidr", "must be a CIDR, got %q", hn.CIDR)
			}
		}
		if hn.ReservedPorts != "" {
			if _, err := structs.ParsePortRanges(hn.ReservedPorts); err != nil {
				bad(key+".reserved_ports", "%v", err)
			}
		}
	}
}
