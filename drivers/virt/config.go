package virt

import (
	"fmt"
	"sort"
	"strconv"
	"time"
)

// taskConfig is a task's `config` block (schema.go), decoded.
type taskConfig struct {
	Image           string
	ThinCopy        bool
	DiskSizeMB      int64
	Accelerator     string // "kvm" or "tcg"; default kvm when /dev/kvm exists
	Arch, Machine   string // os { arch machine }; default x86_64, pc
	Kernel, Initrd  string
	Cmdline         string
	CloudInit       *cloudInit // nil: no seed ISO
	Hostname        string
	Bridges         []bridge       // network_interface { bridge { ... } }
	PortMap         map[string]int // user-mode networking: label -> guest port
	GracefulTimeout time.Duration  // 0: the StopTask timeout (kill_timeout)
}

// cloudInit is what goes on the NoCloud seed ISO.
type cloudInit struct {
	UserData, MetaData, NetworkConfig string
	SSHKey, Password                  string
	Cmds                              []string
}

// bridge is one network_interface's bridge block.
type bridge struct {
	Name  string
	Ports []string // port labels the guest serves on this bridge
}

// parseTaskConfig checks c against Schema (an error names the key), then
// decodes it. kvm says whether /dev/kvm exists (the default accelerator).
func parseTaskConfig(c map[string]any, kvm bool) (*taskConfig, error) {
	if err := Schema.Validate(c); err != nil {
		return nil, err
	}
	tc := &taskConfig{Accelerator: "tcg", Arch: "x86_64", Machine: "pc"}
	if kvm {
		tc.Accelerator = "kvm"
	}
	for key, dst := range map[string]*string{"image": &tc.Image, "accelerator": &tc.Accelerator,
		"kernel": &tc.Kernel, "initrd": &tc.Initrd, "cmdline": &tc.Cmdline, "hostname": &tc.Hostname} {
		if s, ok := c[key].(string); ok {
			*dst = s
		}
	}
	if o := block(c["os"]); o != nil {
		if s, ok := o["arch"].(string); ok {
			tc.Arch = s
		}
		if s, ok := o["machine"].(string); ok {
			tc.Machine = s
		}
	}
	tc.ThinCopy, _ = c["use_thin_copy"].(bool)
	tc.DiskSizeMB = number(c["primary_disk_size"])
	var err error
	if tc.GracefulTimeout, err = duration("graceful_shutdown_timeout", c["graceful_shutdown_timeout"]); err != nil {
		return nil, err
	}
	tc.CloudInit = parseCloudInit(c)
	for i, ni := range blocks(c["network_interface"]) {
		b := block(ni["bridge"])
		if b == nil {
			return nil, fmt.Errorf("network_interface[%d]: a bridge block is required (user-mode networking needs no network_interface)", i)
		}
		name, _ := b["name"].(string)
		tc.Bridges = append(tc.Bridges, bridge{Name: name, Ports: strList(b["ports"])})
	}
	if tc.PortMap, err = portMap(c["port_map"]); err != nil {
		return nil, err
	}
	return tc, tc.validate(kvm)
}

func (tc *taskConfig) validate(kvm bool) error {
	switch {
	case tc.Image == "" && tc.Kernel == "":
		return fmt.Errorf("image or kernel is required")
	case tc.Accelerator != "tcg" && tc.Accelerator != "kvm":
		return fmt.Errorf("accelerator must be \"kvm\" or \"tcg\", got %q", tc.Accelerator)
	case tc.Accelerator == "kvm" && !kvm:
		return fmt.Errorf("accelerator \"kvm\" requested but %s is not available on this node", kvmDevice)
	case (tc.Initrd != "" || tc.Cmdline != "") && tc.Kernel == "":
		return fmt.Errorf("initrd and cmdline need kernel")
	case tc.DiskSizeMB < 0:
		return fmt.Errorf("primary_disk_size must be positive (MiB), got %d", tc.DiskSizeMB)
	case tc.DiskSizeMB > 0 && tc.Image == "":
		return fmt.Errorf("primary_disk_size needs image")
	case tc.ThinCopy && tc.Image == "":
		return fmt.Errorf("use_thin_copy needs image")
	case len(tc.Bridges) > 0 && len(tc.PortMap) > 0:
		return fmt.Errorf("port_map forwards ports into user-mode networking; with network_interface.bridge the guest has its own address")
	case tc.GracefulTimeout < 0:
		return fmt.Errorf("graceful_shutdown_timeout must not be negative")
	}
	for i, b := range tc.Bridges {
		if b.Name == "" {
			return fmt.Errorf("network_interface[%d].bridge.name must not be empty", i)
		}
	}
	return nil
}

// parseCloudInit reads cloud_init { ... } and the shorthand keys; nil when
// none is set.
func parseCloudInit(c map[string]any) *cloudInit {
	ci := &cloudInit{Cmds: strList(c["cmds"])}
	if b := block(c["cloud_init"]); b != nil {
		ci.UserData, _ = b["user_data"].(string)
		ci.MetaData, _ = b["meta_data"].(string)
		ci.NetworkConfig, _ = b["network_config"].(string)
	}
	if s, ok := c["user_data"].(string); ok && ci.UserData == "" {
		ci.UserData = s
	}
	ci.SSHKey, _ = c["default_user_authorized_ssh_key"].(string)
	ci.Password, _ = c["default_user_password"].(string)
	_, hasBlock := c["cloud_init"]
	if !hasBlock && ci.UserData == "" && ci.SSHKey == "" && ci.Password == "" && len(ci.Cmds) == 0 {
		if _, ok := c["hostname"]; !ok {
			return nil
		}
	}
	return ci
}

// block is a Block value: a map, or a list holding one map.
func block(v any) map[string]any {
	bs := blocks(v)
	if len(bs) == 0 {
		return nil
	}
	return bs[0]
}

// blocks is a Blocks value: a map or a list of maps.
func blocks(v any) []map[string]any {
	switch b := v.(type) {
	case map[string]any:
		return []map[string]any{b}
	case []map[string]any:
		return b
	case []any:
		var out []map[string]any
		for _, e := range b {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out
	}
	return nil
}

func strList(v any) []string {
	switch l := v.(type) {
	case []string:
		return l
	case []any:
		out := make([]string, 0, len(l))
		for _, e := range l {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func number(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case int:
		return int64(n)
	case float64:
		return int64(n)
	case uint64:
		return int64(n)
	}
	return 0
}

func duration(key string, v any) (time.Duration, error) {
	switch d := v.(type) {
	case nil:
		return 0, nil
	case string:
		out, err := time.ParseDuration(d)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", key, err)
		}
		return out, nil
	}
	return time.Duration(number(v)), nil
}

// portMap reads port_map { label = guest_port } (a map, or blocks that merge).
func portMap(v any) (map[string]int, error) {
	out := map[string]int{}
	for _, m := range blocks(v) {
		for label, p := range m {
			var n int64
			switch p := p.(type) {
			case string:
				var err error
				if n, err = strconv.ParseInt(p, 10, 64); err != nil {
					return nil, fmt.Errorf("port_map.%s: %q is not a number", label, p)
				}
			default:
				n = number(p)
			}
			if n < 1 || n > 65535 {
				return nil, fmt.Errorf("port_map.%s: port %v out of range 1-65535", label, p)
			}
			out[label] = int(n)
		}
	}
	return out, nil
}

// forwards maps each port_map label to {host port, guest port}: the host
// port the scheduler gave it (NOMAD_HOST_PORT_<label>). Sorted by label.
// An unknown label is an error naming it.
// checkBridgePorts fails when a bridge names a port label the group's
// network block does not hold (the scheduler gives each of its labels a
// NOMAD_PORT_<label>): a typo would otherwise be served on no port.
func checkBridgePorts(bridges []bridge, env map[string]string) error {
	for _, b := range bridges {
		for _, l := range b.Ports {
			if _, ok := env["NOMAD_PORT_"+l]; !ok {
				return fmt.Errorf("network_interface.bridge %q: ports: no port labelled %q in the group's network block", b.Name, l)
			}
		}
	}
	return nil
}

func forwards(pm map[string]int, env map[string]string) ([][2]int, error) {
	const key = "NOMAD_HOST_PORT_"
	labels := make([]string, 0, len(pm))
	for l := range pm {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	var out [][2]int
	for _, l := range labels {
		hp, err := strconv.Atoi(env[key+l])
		if err != nil {
			return nil, fmt.Errorf("port_map: no port labelled %q in the group's network block", l)
		}
		out = append(out, [2]int{hp, pm[l]})
	}
	return out, nil
}
