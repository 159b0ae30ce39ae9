package network

import (
	"fmt"
	"net"
	"path/filepath"
	"regexp"
)

// Defaults, as Nomad's client (cni_path adds Debian's /usr/lib/cni, where
// containernetworking-plugins installs the plugins).
const (
	DefaultBridgeName   = "nomad"
	DefaultBridgeSubnet = "172.26.64.0/20"
	DefaultCNIPath      = "/opt/cni/bin:/usr/lib/cni"
	DefaultCNIConfigDir = "/opt/cni/config"
	// NamespacePrefix names the namespaces the client creates:
	// /var/run/netns/nomadish-<allocID>.
	NamespacePrefix = "nomadish-"
)

// Config is the client's networking configuration (client { bridge_network_*
// cni_path cni_config_dir }).
type Config struct {
	// BridgeName is the Linux bridge of bridge mode and the name of the
	// conflist the client writes (host-local keeps its leases under
	// /var/lib/cni/networks/<BridgeName>).
	BridgeName string
	// BridgeSubnet is the IPv4 subnet allocations get addresses from.
	BridgeSubnet string
	// HairpinMode lets an allocation reach itself through its mapped ports.
	HairpinMode bool
	// CNIPath is a list of directories (":"-separated) holding the plugins.
	CNIPath string
	// ConfigDir holds the users' conflists (the cni/<name> modes).
	ConfigDir string
	// CacheDir is libcni's cache of results (the client's own:
	// <state_dir>/cni), so agents on one machine keep apart.
	CacheDir string
}

// WithDefaults returns c with its empty fields set to the defaults.
func (c Config) WithDefaults() Config {
	if c.BridgeName == "" {
		c.BridgeName = DefaultBridgeName
	}
	if c.BridgeSubnet == "" {
		c.BridgeSubnet = DefaultBridgeSubnet
	}
	if c.CNIPath == "" {
		c.CNIPath = DefaultCNIPath
	}
	if c.ConfigDir == "" {
		c.ConfigDir = DefaultCNIConfigDir
	}
	return c
}

// bridgeNameRE is what a Linux interface name may be (15 bytes at most).
var bridgeNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,15}$`)

// Validate checks the values a user sets; each error names its key.
func (c Config) Validate() error {
	if c.BridgeName != "" && !bridgeNameRE.MatchString(c.BridgeName) {
		return fmt.Errorf("bridge_network_name: %q is not a valid interface name (1-15 letters, digits, '_', '.', '-')", c.BridgeName)
	}
	if c.BridgeSubnet != "" {
		ip, n, err := net.ParseCIDR(c.BridgeSubnet)
		if err != nil {
			return fmt.Errorf("bridge_network_subnet: %q is not a CIDR: %v", c.BridgeSubnet, err)
		}
		if ip.To4() == nil {
			return fmt.Errorf("bridge_network_subnet: %q must be an IPv4 subnet", c.BridgeSubnet)
		}
		if ones, _ := n.Mask.Size(); ones > 29 {
			return fmt.Errorf("bridge_network_subnet: %q is too small (at most /29)", c.BridgeSubnet)
		}
	}
	for _, dir := range filepath.SplitList(c.CNIPath) {
		if dir != "" && !filepath.IsAbs(dir) {
			return fmt.Errorf("cni_path: %q is not an absolute path", dir)
		}
	}
	if c.ConfigDir != "" && !filepath.IsAbs(c.ConfigDir) {
		return fmt.Errorf("cni_config_dir: %q is not an absolute path", c.ConfigDir)
	}
	return nil
}

// pluginDirs returns the CNI path's directories.
func (c Config) pluginDirs() []string {
	var out []string
	for _, d := range filepath.SplitList(c.CNIPath) {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}
