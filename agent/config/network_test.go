package config

import (
	"strings"
	"testing"
)

func TestNetworkConfig(t *testing.T) {
	src := `client {
  enabled                     = true
  bridge_network_name         = "nomadish0"
  bridge_network_subnet       = "10.99.0.0/24"
  bridge_network_hairpin_mode = true
  cni_path                    = "/usr/lib/cni:/opt/cni/bin"
  cni_config_dir              = "/etc/cni/net.d"
  host_network "public" {
    cidr           = "203.0.113.0/24"
    reserved_ports = "22,80"
  }
  host_network "lo" {
    interface = "lo"
  }
}
`
	c, err := loadSource([]byte(src), "c.hcl")
	if err != nil {
		t.Fatal(err)
	}
	got := DevConfig().Merge(c)
	if err := got.Validate(); err != nil {
		t.Fatalf("validate: %v", err)
	}
	n := got.Client.Network
	if n.BridgeName != "nomadish0" || n.BridgeSubnet != "10.99.0.0/24" || !n.BridgeHairpinMode ||
		n.CNIPath != "/usr/lib/cni:/opt/cni/bin" || n.CNIConfigDir != "/etc/cni/net.d" {
		t.Fatalf("network = %+v", n)
	}
	hn := got.Client.HostNetworks
	if len(hn) != 2 || hn[0].Name != "lo" || hn[0].Interface != "lo" || hn[1].Name != "public" ||
		hn[1].CIDR != "203.0.113.0/24" || hn[1].ReservedPorts != "22,80" {
		t.Fatalf("host networks = %+v", hn)
	}
	// Defaults: nothing set, nothing to complain about (client/network fills them).
	if d := DevConfig(); d.Client.Network != (NetworkConfig{}) || d.Validate() != nil {
		t.Fatalf("defaults: %+v %v", d.Client.Network, d.Validate())
	}
}

func TestNetworkConfigErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"bad subnet", "client {\n  bridge_network_subnet = \"10.0.0.0\"\n}\n",
			`c.hcl:2:3: client.bridge_network_subnet: must be a CIDR such as 172.26.64.0/20, got "10.0.0.0"`},
		{"ipv6 subnet", "client {\n  bridge_network_subnet = \"fd00::/64\"\n}\n",
			`client.bridge_network_subnet: must be an IPv4 subnet`},
		{"tiny subnet", "client {\n  bridge_network_subnet = \"10.0.0.0/30\"\n}\n",
			`client.bridge_network_subnet: "10.0.0.0/30" is too small`},
		{"bridge name", "client {\n  bridge_network_name = \"a very long bridge name\"\n}\n",
			`c.hcl:2:3: client.bridge_network_name: must be an interface name`},
		{"relative cni_path", "client {\n  cni_path = \"/opt/cni/bin:cni\"\n}\n",
			`c.hcl:2:3: client.cni_path: "cni" is not an absolute path`},
		{"relative config dir", "client {\n  cni_config_dir = \"etc\"\n}\n",
			`c.hcl:2:3: client.cni_config_dir: must be an absolute path`},
		{"host network without cidr or interface", "client {\n  host_network \"x\" {\n    reserved_ports = \"22\"\n  }\n}\n",
			`c.hcl:2:16: client.host_network["x"]: needs a cidr or an interface`},
		{"host network bad cidr", "client {\n  host_network \"x\" {\n    cidr = \"nope\"\n  }\n}\n",
			`c.hcl:2:16: client.host_network["x"].cidr: must be a CIDR, got "nope"`},
		{"host network bad ports", "client {\n  host_network \"x\" {\n    interface = \"lo\"\n    reserved_ports = \"99999\"\n  }\n}\n",
			`client.host_network["x"].reserved_ports: port range "99999" out of [1, 65535]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := loadSource([]byte(tc.src), "c.hcl")
			if err == nil {
				err = DevConfig().Merge(c).Validate()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	for _, tc := range []struct{ name, src, want string }{
		{"unknown key", "client {\n  host_network \"x\" {\n    cdir = \"10.0.0.0/8\"\n  }\n}\n", `c.hcl:3:5: Unsupported argument`},
		{"duplicate", "client {\n  host_network \"x\" {\n    interface = \"lo\"\n  }\n  host_network \"x\" {\n    interface = \"lo\"\n  }\n}\n",
			`c.hcl:5:16: Duplicate host_network`},
		{"no label", "client {\n  host_network {\n  }\n}\n", `c.hcl:2:3: Wrong number of labels`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadSource([]byte(tc.src), "c.hcl")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
