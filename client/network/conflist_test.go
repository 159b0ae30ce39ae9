package network_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nomadish/nomadish/client/network"
	"github.com/nomadish/nomadish/structs"
)

func TestBridgeConflist(t *testing.T) {
	buf, err := network.BridgeConflist(network.Config{BridgeName: "nomad", BridgeSubnet: "172.26.64.0/20", HairpinMode: true})
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		CNIVersion string           `json:"cniVersion"`
		Name       string           `json:"name"`
		Plugins    []map[string]any `json:"plugins"`
	}
	if err := json.Unmarshal(buf, &list); err != nil {
		t.Fatal(err)
	}
	if list.Name != "nomad" || list.CNIVersion != "1.0.0" {
		t.Fatalf("name %q version %q", list.Name, list.CNIVersion)
	}
	var types []string
	for _, p := range list.Plugins {
		types = append(types, p["type"].(string))
	}
	if want := []string{"loopback", "bridge", "firewall", "portmap"}; !reflect.DeepEqual(types, want) {
		t.Fatalf("plugins %v, want %v", types, want)
	}
	br := list.Plugins[1]
	if br["bridge"] != "nomad" || br["isGateway"] != true || br["ipMasq"] != true || br["hairpinMode"] != true {
		t.Fatalf("bridge %v", br)
	}
	ipam := br["ipam"].(map[string]any)
	if ipam["type"] != "host-local" || !strings.Contains(string(buf), `"subnet": "172.26.64.0/20"`) {
		t.Fatalf("ipam %v", ipam)
	}
	if fw := list.Plugins[2]; fw["backend"] != "iptables" || fw["iptablesAdminChainName"] != "NOMAD-ADMIN" {
		t.Fatalf("firewall %v", fw)
	}
	if pm := list.Plugins[3]; pm["capabilities"].(map[string]any)["portMappings"] != true || pm["snat"] != true {
		t.Fatalf("portmap %v", pm)
	}
	// Hairpin follows the config.
	off, _ := network.BridgeConflist(network.Config{BridgeName: "b", BridgeSubnet: "10.0.0.0/24"})
	if !strings.Contains(string(off), `"hairpinMode": false`) {
		t.Fatalf("hairpin off: %s", off)
	}
}

func TestPortMappings(t *testing.T) {
	got := network.PortMappings([]structs.AllocatedPortMapping{
		{Label: "http", Value: 25000, To: 8080, HostIP: "10.0.0.7"},
		{Label: "same", Value: 24000, To: -1},
		{Label: "plain", Value: 23000},
	})
	want := []network.PortMapping{
		{HostPort: 23000, ContainerPort: 23000, Protocol: "tcp"}, {HostPort: 23000, ContainerPort: 23000, Protocol: "udp"},
		{HostPort: 24000, ContainerPort: 24000, Protocol: "tcp"}, {HostPort: 24000, ContainerPort: 24000, Protocol: "udp"},
		{HostPort: 25000, ContainerPort: 8080, Protocol: "tcp", HostIP: "10.0.0.7"},
		{HostPort: 25000, ContainerPort: 8080, Protocol: "udp", HostIP: "10.0.0.7"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

func TestUserConflist(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("10-mynet.conflist", `{"cniVersion": "1.0.0", "name": "mynet", "plugins": [{"type": "loopback"}]}`)
	write("20-single.conf", `{"cniVersion": "0.4.0", "name": "single", "type": "bridge"}`)
	write("30-dup.conflist", `{"cniVersion": "1.0.0", "name": "mynet", "plugins": []}`)
	write("notes.txt", `{"name": "ignored"}`)
	write("broken.json", `{`)
	names, err := network.ConflistNames(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 2 || filepath.Base(names["mynet"]) != "10-mynet.conflist" || filepath.Base(names["single"]) != "20-single.conf" {
		t.Fatalf("names %v", names)
	}
	buf, err := network.UserConflist(dir, "single")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Name    string            `json:"name"`
		Plugins []json.RawMessage `json:"plugins"`
	}
	if err := json.Unmarshal(buf, &list); err != nil || list.Name != "single" || len(list.Plugins) != 1 {
		t.Fatalf("wrapped %s: %v", buf, err)
	}
	if _, err := network.UserConflist(dir, "nope"); err == nil || !strings.Contains(err.Error(), `no CNI network "nope"`) {
		t.Fatalf("missing network: %v", err)
	}
	if names, err := network.ConflistNames(filepath.Join(dir, "absent")); err != nil || len(names) != 0 {
		t.Fatalf("absent dir: %v %v", names, err)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg  network.Config
		want string
	}{
		{network.Config{}, ""},
		{network.Config{}.WithDefaults(), ""},
		{network.Config{BridgeName: "this-name-is-too-long"}, "bridge_network_name"},
		{network.Config{BridgeSubnet: "10.0.0.1"}, "bridge_network_subnet"},
		{network.Config{BridgeSubnet: "fd00::/64"}, "IPv4"},
		{network.Config{CNIPath: "/opt/cni/bin:rel"}, "cni_path"},
		{network.Config{ConfigDir: "rel"}, "cni_config_dir"},
	} {
		err := tc.cfg.Validate()
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err %v, want %q", tc.cfg, err, tc.want)
		}
	}
	d := network.Config{}.WithDefaults()
	if d.BridgeName != "nomad" || d.BridgeSubnet != "172.26.64.0/20" || d.ConfigDir != "/opt/cni/config" ||
		!strings.Contains(d.CNIPath, "/opt/cni/bin") {
		t.Fatalf("defaults %+v", d)
	}
}

func TestParsePluginVersion(t *testing.T) {
	for about, want := range map[string]string{
		"CNI bridge plugin version unknown\nCNI protocol versions supported: 0.1.0, 0.4.0, 1.0.0\n": "1.0.0",
		"CNI bridge plugin v1.4.0\nCNI protocol versions supported: 0.1.0, 1.0.0\n":                 "v1.4.0",
		"garbage": "",
	} {
		if got := network.ParsePluginVersion(about); got != want {
			t.Errorf("%q: got %q, want %q", about, got, want)
		}
	}
}

func TestFiles(t *testing.T) {
	hosts := string(network.HostsFile("web-1", "172.26.64.9"))
	if !strings.Contains(hosts, "127.0.0.1\tlocalhost\n") || !strings.Contains(hosts, "172.26.64.9\tweb-1\n") {
		t.Fatalf("hosts %q", hosts)
	}
	resolv := string(network.ResolvConf(&structs.DNSConfig{Servers: []string{"1.1.1.1", "8.8.8.8"}, Searches: []string{"a.local", "b.local"}, Options: []string{"ndots:2"}}))
	for _, line := range []string{"nameserver 1.1.1.1\n", "nameserver 8.8.8.8\n", "search a.local b.local\n", "options ndots:2\n"} {
		if !strings.Contains(resolv, line) {
			t.Fatalf("resolv.conf %q lacks %q", resolv, line)
		}
	}
	dir := t.TempDir()
	rec := &network.Record{Status: &structs.AllocNetworkStatus{Address: "172.26.64.9"}}
	if err := network.WriteFiles(dir, rec, "web-1", &structs.DNSConfig{Servers: []string{"1.1.1.1"}}); err != nil {
		t.Fatal(err)
	}
	if rec.HostsPath != filepath.Join(dir, "hosts") || rec.ResolvConfPath != filepath.Join(dir, "resolv.conf") || rec.Status.DNS == nil {
		t.Fatalf("rec %+v", rec)
	}
	iso := rec.Isolation()
	if iso != nil { // no namespace path: no isolation
		t.Fatalf("isolation without a namespace: %+v", iso)
	}
	none := &network.Record{}
	if err := network.WriteFiles(t.TempDir(), none, "", nil); err != nil || none.HostsPath != "" || none.ResolvConfPath != "" {
		t.Fatalf("no hostname, no dns: %+v %v", none, err)
	}
}
