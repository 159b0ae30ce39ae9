package network

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// cniVersion is the spec version of the conflists the client writes (the
// Debian plugins speak 0.1.0 to 1.0.0).
const cniVersion = "1.0.0"

// adminChain is the iptables chain the firewall plugin leaves to the
// operator (Nomad's name).
const adminChain = "NOMAD-ADMIN"

// PortMapping is one entry of the portMappings capability (the portmap
// plugin's runtime argument).
type PortMapping struct {
	HostPort      int    `json:"hostPort"`
	ContainerPort int    `json:"containerPort"`
	Protocol      string `json:"protocol"`
	HostIP        string `json:"hostIP,omitempty"`
}

// PortMappings turns an allocation's ports into portmap entries: each
// host port to its `to` port inside (the host port when `to` is 0 or -1),
// tcp and udp, on the port's host IP when it has one. Sorted by host port
// then protocol. Pure.
func PortMappings(ports []structs.AllocatedPortMapping) []PortMapping {
	out := make([]PortMapping, 0, 2*len(ports))
	for _, p := range ports {
		if p.Value <= 0 {
			continue
		}
		to := p.To
		if to <= 0 {
			to = p.Value
		}
		for _, proto := range []string{"tcp", "udp"} {
			out = append(out, PortMapping{HostPort: p.Value, ContainerPort: to, Protocol: proto, HostIP: p.HostIP})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].HostPort != out[j].HostPort {
			return out[i].HostPort < out[j].HostPort
		}
		return out[i].Protocol < out[j].Protocol
	})
	return out
}

// BridgeConflist returns the conflist of bridge mode the client writes
// itself: loopback; the bridge plugin (gateway, masquerade, hairpin as
// configured) with host-local addresses from the subnet and a default
// route; the firewall plugin (iptables, NOMAD-ADMIN chain); portmap with
// the portMappings capability. Pure; c has its defaults.
func BridgeConflist(c Config) ([]byte, error) {
	list := map[string]any{
		"cniVersion": cniVersion,
		"name":       c.BridgeName,
		"plugins": []any{
			map[string]any{"type": "loopback"},
			map[string]any{
				"type": "bridge", "bridge": c.BridgeName,
				"isGateway": true, "ipMasq": true, "forceAddress": true,
				"hairpinMode": c.HairpinMode,
				"ipam": map[string]any{
					"type":   "host-local",
					"ranges": [][]map[string]string{{{"subnet": c.BridgeSubnet}}},
					"routes": []map[string]string{{"dst": "0.0.0.0/0"}},
				},
			},
			map[string]any{"type": "firewall", "backend": "iptables", "iptablesAdminChainName": adminChain},
			map[string]any{"type": "portmap", "capabilities": map[string]bool{"portMappings": true}, "snat": true},
		},
	}
	return json.MarshalIndent(list, "", "  ")
}

// NoneConflist is none mode's: loopback alone.
func NoneConflist() []byte {
	return []byte(`{"cniVersion": "` + cniVersion + `", "name": "nomadish-none", "plugins": [{"type": "loopback"}]}`)
}

// UserConflist reads the conflist named name (its "name" field) from dir:
// the files *.conflist, *.conf and *.json, as libcni's loader reads them.
// A single-plugin .conf is wrapped into a list. Errors name the file.
func UserConflist(dir, name string) ([]byte, error) {
	lists, err := ConflistNames(dir)
	if err != nil {
		return nil, err
	}
	file, ok := lists[name]
	if !ok {
		return nil, fmt.Errorf("no CNI network %q in %s", name, dir)
	}
	buf, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var probe struct {
		CNIVersion string            `json:"cniVersion"`
		Plugins    []json.RawMessage `json:"plugins"`
	}
	if err := json.Unmarshal(buf, &probe); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if probe.Plugins != nil {
		return buf, nil
	}
	wrapped := fmt.Sprintf(`{"cniVersion": %q, "name": %q, "plugins": [%s]}`, probe.CNIVersion, name, buf)
	return []byte(wrapped), nil
}

// ConflistNames maps the network names of the conflists in dir to their
// files (the first file in name order wins a name). A missing dir has
// none; a file that is not JSON with a name is skipped.
func ConflistNames(dir string) (map[string]string, error) {
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading cni_config_dir: %w", err)
	}
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if e.IsDir() || (ext != ".conflist" && ext != ".conf" && ext != ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		file := filepath.Join(dir, e.Name())
		buf, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		var probe struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(buf, &probe) != nil || probe.Name == "" {
			continue
		}
		if _, dup := out[probe.Name]; !dup {
			out[probe.Name] = file
		}
	}
	return out, nil
}
