// Package fingerprint discovers what a client machine offers: CPU, memory,
// disk, OS and kernel, hostname and address. It reads procfs and sysfs under
// a root path (so tests use fake trees) and takes a few milliseconds.
package fingerprint

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"

	"github.com/nomadish/nomadish/client/network"
	"github.com/nomadish/nomadish/structs"
)

// Config says where to look. The zero value fingerprints this machine with
// the disk of the current directory.
type Config struct {
	// Root is prepended to /proc, /sys and /etc paths ("" or "/": the real ones).
	Root string
	// DataDir is the directory whose filesystem is fingerprinted as disk.
	DataDir string
	// SysfsRoot is where sysfs is mounted (default Root's /sys): the CPU
	// topology is read from its devices/system/{node,cpu}.
	SysfsRoot string
	// ReservedCores are the client's reserved.cores: online but Disabled
	// in the topology, not reservable, listed in Result.ReservedCores.
	ReservedCores []uint16
	// ReservableCores, when not empty, are the only cores left to
	// scheduling (the client's reservable_cores); the others are treated
	// as ReservedCores.
	ReservableCores []uint16
	// Version is reported as nomad.version.
	Version string
	// Hostname returns the host name (default os.Hostname).
	Hostname func() (string, error)
	// InterfaceAddrs returns the machine's addresses (default net.InterfaceAddrs).
	InterfaceAddrs func() ([]net.Addr, error)
	// Interfaces lists the interfaces host networks are matched against
	// (default Interfaces); HostNetworks are the client's host_network
	// blocks; CNI, when set, is the client's CNI config: bridge and
	// cni/<name> modes are fingerprinted (network_modes.go).
	Interfaces   func() ([]Iface, error)
	HostNetworks []HostNetwork
	CNI          *network.Config
}

// Result is the fingerprinted node data.
type Result struct {
	Attributes map[string]string
	Resources  *structs.NodeResources
	// ReservedCores are the online cores the config keeps from scheduling
	// (the node's ReservedResources.Cpu.ReservedCpuCores).
	ReservedCores []uint16
}

func (c *Config) path(p string) string {
	if c.Root == "" {
		return p
	}
	return filepath.Join(c.Root, p)
}

// Fingerprint runs every fingerprinter. A fingerprinter that cannot read
// its source falls back to a safe default; only a failing disk statfs and
// reserved or reservable cores the machine does not have are errors.
func Fingerprint(cfg Config) (*Result, error) {
	r := &Result{Attributes: map[string]string{}, Resources: &structs.NodeResources{}}
	mhz, cores := fingerprintCPU(&cfg, r)
	fingerprintMemory(&cfg, r)
	if err := fingerprintTopology(&cfg, r, mhz, cores); err != nil {
		return nil, err
	}
	fingerprintHost(&cfg, r)
	fingerprintNetwork(&cfg, r)
	if err := fingerprintNodeNetworks(&cfg, r); err != nil { // network_modes.go
		return nil, err
	}
	if err := fingerprintDisk(&cfg, r); err != nil {
		return nil, err
	}
	r.Attributes["nomad.version"] = cfg.Version
	r.Attributes["cpu.arch"] = runtime.GOARCH
	r.Attributes["arch"] = runtime.GOARCH
	return r, nil
}

// fingerprintHost sets kernel.*, os.* and unique.hostname.
func fingerprintHost(cfg *Config, r *Result) {
	kname := readTrim(cfg.path("/proc/sys/kernel/ostype"))
	if kname == "" {
		kname = runtime.GOOS
	}
	r.Attributes["kernel.name"] = lower(kname)
	if v := readTrim(cfg.path("/proc/sys/kernel/osrelease")); v != "" {
		r.Attributes["kernel.version"] = v
	}
	if m := machine(cfg); m != "" {
		r.Attributes["kernel.arch"] = m
	}
	osName, osVersion := osRelease(cfg.path("/etc/os-release"))
	if osName == "" {
		osName = runtime.GOOS
	}
	r.Attributes["os.name"] = osName
	if osVersion != "" {
		r.Attributes["os.version"] = osVersion
	}
	hostname := cfg.Hostname
	if hostname == nil {
		hostname = os.Hostname
	}
	if h, err := hostname(); err == nil {
		r.Attributes["unique.hostname"] = h
	}
}

// fingerprintNetwork sets unique.network.ip-address to the first
// non-loopback IPv4 address, or 127.0.0.1, and reports it as the node's
// host network (NodeResources.Networks): the address allocations' ports
// bind to.
func fingerprintNetwork(cfg *Config, r *Result) {
	addrsFn := cfg.InterfaceAddrs
	if addrsFn == nil {
		addrsFn = net.InterfaceAddrs
	}
	ip := "127.0.0.1"
	if addrs, err := addrsFn(); err == nil {
		for _, a := range addrs {
			n, ok := a.(*net.IPNet)
			if !ok || n.IP.IsLoopback() || n.IP.To4() == nil || n.IP.IsLinkLocalUnicast() {
				continue
			}
			ip = n.IP.String()
			break
		}
	}
	r.Attributes["unique.network.ip-address"] = ip
	r.Resources.Networks = []*structs.NetworkResource{{Mode: structs.NetworkModeHost, IP: ip, CIDR: ip + "/32"}}
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func itoa(n int64) string { return fmt.Sprintf("%d", n) }
