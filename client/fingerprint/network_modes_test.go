package fingerprint

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/nomadish/nomadish/client/network"
	"github.com/nomadish/nomadish/client/network/networktest"
	"github.com/nomadish/nomadish/structs"
)

func ipnet(s string) *net.IPNet {
	ip, n, _ := net.ParseCIDR(s)
	n.IP = ip
	return n
}

func TestHostNetworkResources(t *testing.T) {
	ifaces := []Iface{
		{Name: "lo", Addrs: []*net.IPNet{ipnet("127.0.0.1/8")}},
		{Name: "eth0", MAC: "aa:bb", Addrs: []*net.IPNet{ipnet("10.0.0.7/24"), ipnet("fe80::1/64")}},
		{Name: "eth1", Addrs: []*net.IPNet{ipnet("203.0.113.5/24"), ipnet("203.0.113.6/24")}},
	}
	got, err := HostNetworkResources(ifaces, []HostNetwork{
		{Name: "public", CIDR: "203.0.113.0/24", ReservedPorts: "22"},
		{Name: "private", Interface: "eth0"},
		{Name: "both", Interface: "eth1", CIDR: "203.0.113.6/32"},
		{Name: "nothing", CIDR: "192.0.2.0/24"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Device != "eth0" || got[1].Device != "eth1" {
		t.Fatalf("got %+v", got)
	}
	eth0 := got[0]
	if eth0.Mode != "host" || eth0.MacAddress != "aa:bb" || len(eth0.Addresses) != 1 ||
		eth0.Addresses[0] != (structs.NodeNetworkAddress{Family: "ipv4", Alias: "private", Address: "10.0.0.7"}) {
		t.Fatalf("eth0 %+v (link-local left out)", eth0)
	}
	want := []structs.NodeNetworkAddress{
		{Family: "ipv4", Alias: "public", Address: "203.0.113.5", ReservedPorts: "22"},
		{Family: "ipv4", Alias: "public", Address: "203.0.113.6", ReservedPorts: "22"},
		{Family: "ipv4", Alias: "both", Address: "203.0.113.6"},
	}
	if len(got[1].Addresses) != len(want) {
		t.Fatalf("eth1 %+v", got[1].Addresses)
	}
	for i := range want {
		if got[1].Addresses[i] != want[i] {
			t.Fatalf("eth1 address %d = %+v, want %+v", i, got[1].Addresses[i], want[i])
		}
	}
	if _, err := HostNetworkResources(ifaces, []HostNetwork{{Name: "bad", CIDR: "x"}}); err == nil {
		t.Fatal("bad cidr accepted")
	}
}

// TestFingerprintNodeNetworks runs the fingerprint with the machine's real
// CNI plugins and a conflist dir of the test's.
func TestFingerprintNodeNetworks(t *testing.T) {
	cfg := network.Config{ConfigDir: t.TempDir()}
	networktest.NeedBridge(t, cfg)
	conf := `{"cniVersion": "1.0.0", "name": "mynet", "plugins": [{"type": "loopback"}]}`
	if err := os.WriteFile(filepath.Join(cfg.ConfigDir, "mynet.conflist"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Fingerprint(Config{DataDir: t.TempDir(), CNI: &cfg,
		InterfaceAddrs: func() ([]net.Addr, error) { return []net.Addr{ipnet("10.0.0.7/24")}, nil },
		Interfaces: func() ([]Iface, error) {
			return []Iface{{Name: "eth0", Addrs: []*net.IPNet{ipnet("10.0.0.7/24")}}}, nil
		},
		HostNetworks: []HostNetwork{{Name: "private", Interface: "eth0"}}})
	if err != nil {
		t.Fatal(err)
	}
	modes := map[string]*structs.NodeNetworkResource{}
	for _, n := range res.Resources.NodeNetworks {
		modes[n.Mode+"/"+n.Device] = n
	}
	if modes["bridge/"] == nil || modes["cni/mynet/"] == nil {
		t.Fatalf("node networks %v", modes)
	}
	if h := modes["host/eth0"]; h == nil || len(h.Addresses) != 2 || h.Addresses[0].Alias != "default" {
		t.Fatalf("host networks %+v", h)
	}
	aliases := map[string]bool{}
	for _, n := range res.Resources.NodeNetworks {
		for _, a := range n.Addresses {
			aliases[a.Alias+"="+a.Address] = true
		}
	}
	if !aliases["default=10.0.0.7"] || !aliases["private=10.0.0.7"] {
		t.Fatalf("aliases %v", aliases)
	}
	versions := CNIVersionAttributes(context.Background(), cfg)
	for _, p := range network.BridgePlugins {
		if versions["plugins.cni.version."+p] == "" {
			t.Errorf("no plugins.cni.version.%s attribute", p)
		}
	}
	// Without the plugins there is no bridge mode.
	none := network.Config{CNIPath: t.TempDir(), ConfigDir: t.TempDir()}
	res, err = Fingerprint(Config{DataDir: t.TempDir(), CNI: &none})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range res.Resources.NodeNetworks {
		if n.Mode == structs.NetworkModeBridge {
			t.Fatal("bridge mode without its plugins")
		}
	}
}
