package client

import (
	"crypto/tls"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nomadish/nomadish/client/allocgc"
	"github.com/nomadish/nomadish/client/fingerprint"
	"github.com/nomadish/nomadish/client/getter"
	"github.com/nomadish/nomadish/client/network"
	"github.com/nomadish/nomadish/client/pluginmgr"
	"github.com/nomadish/nomadish/drivers"
	"github.com/nomadish/nomadish/drivers/base"
	"github.com/nomadish/nomadish/structs"
)

// RPCer is how the client talks to the servers (rpcclient.Client over TCP,
// or server.(*Server) in process).
type RPCer interface {
	RPC(method string, args any, reply any) error
}

// Config configures a client.
type Config struct {
	DataDir, NodeName, Datacenter, Region, NodeClass string
	// NodePool is the node pool the node registers in ("": "default").
	NodePool string
	Meta     map[string]string
	Servers  []string // informational; the RPCer is given
	// StateDir holds the client's state db and node ID (default
	// <DataDir>/client); AllocDir holds the allocations' directories and is
	// the filesystem fingerprinted as disk (default <DataDir>/alloc).
	StateDir, AllocDir string
	// PluginConfig holds each plugin block's config, e.g.
	// {"raw_exec": {"enabled": true}}.
	PluginConfig map[string]map[string]any
	// Drivers is the catalog of drivers the client may run (the agent's is
	// drivers/catalog.Builtin): each entry's Default rule says, given the
	// host and PluginConfig, whether it runs and with which config.
	Drivers drivers.Catalog
	// PluginExecutable is the nomadish binary; plugins run as
	// "<exe> plugin <driver>".
	PluginExecutable string
	// DevMode uses a temporary data dir when DataDir is empty and kills
	// the tasks on Shutdown.
	DevMode bool
	Logger  hclog.Logger

	// PublishNodeMetrics and PublishAllocationMetrics (the telemetry
	// block) emit the host's and the tasks' usage every MetricsInterval
	// (collection_interval; 0: 1 s) (metrics.go).
	PublishNodeMetrics, PublishAllocationMetrics bool
	MetricsInterval                              time.Duration

	// MinDynamicPort and MaxDynamicPort bound the node's dynamic ports (0:
	// Nomad's 20000-32000); ReservedPorts ("22,80,8000-8100") are host ports
	// no allocation may take. The node reports them to the scheduler.
	MinDynamicPort, MaxDynamicPort int
	ReservedPorts                  string

	// ReservedCores ("0-1") are cores kept from scheduling; when
	// ReservableCores ("2-15") is set, the cores outside it are too. Both
	// are cpusets; SysfsRoot (default /sys) is where the CPU topology is
	// read (fingerprint.Config).
	ReservedCores, ReservableCores, SysfsRoot string

	// IntroToken is the client introduction token (Nomad's client {
	// intro_token }) sent with Node.Register, which servers enforcing
	// client_introduction require of a node ID they have not seen.
	IntroToken string
	// HTTPAddr is the agent's HTTP address reported in the node (optional).
	HTTPAddr string
	// HTTPTLS, when the agent serves HTTPS, is the client config the client
	// calls its own agent's API with (migrate.go); nil: plain HTTP.
	HTTPTLS *tls.Config
	// Version is reported as the nomad.version attribute (default
	// version.Version).
	Version string
	// HostVolumes are the client's host_volume blocks by name, reported in
	// the node (Node.HostVolumes) and mounted into tasks (taskrunner).
	HostVolumes map[string]*structs.ClientHostVolumeConfig
	// Launcher starts driver plugins (default: drivers.Launch with
	// PluginExecutable). Tests inject fakes.
	Launcher pluginmgr.LaunchFunc
	// Artifacts is the artifact block: download limits and isolation of
	// the tasks' artifacts (nil: getter.DefaultConfig()).
	Artifacts *getter.Config
	// Network is the CNI configuration of bridge, none and cni/<name>
	// group networks (client { bridge_network_name bridge_network_subnet
	// bridge_network_hairpin_mode cni_path cni_config_dir }; zero values
	// take network.DefaultXxx); HostNetworks are the host_network blocks
	// reported in the node's NodeNetworks (group_network.go).
	Network      network.Config
	HostNetworks []fingerprint.HostNetwork
	// GC is the client's garbage collection (client { gc_interval
	// gc_disk_usage_threshold gc_inode_usage_threshold gc_max_allocs
	// gc_parallel_destroys }; zero fields take Nomad's defaults);
	// GCDiskStats measures the alloc dir's filesystem (nil: statfs).
	GC          allocgc.Config
	GCDiskStats allocgc.DiskStats
}

var errNoDataDir = errors.New("client: data_dir is required outside dev mode")

// fingerprintConfig is the fingerprint configuration: the disk of
// dataDir, and the cores and sysfs root of the config. A malformed cpuset
// is an error naming it.
func (c *Config) fingerprintConfig(dataDir string) (fingerprint.Config, error) {
	fc := fingerprint.Config{DataDir: dataDir, Version: c.Version, SysfsRoot: c.SysfsRoot}
	nc := c.networkConfig() // group_network.go
	fc.CNI, fc.HostNetworks = &nc, c.HostNetworks
	var err error
	if fc.ReservedCores, err = fingerprint.ParseCPUSet(c.ReservedCores); err != nil {
		return fc, fmt.Errorf("client: reserved cores: %w", err)
	}
	if fc.ReservableCores, err = fingerprint.ParseCPUSet(c.ReservableCores); err != nil {
		return fc, fmt.Errorf("client: reservable cores: %w", err)
	}
	return fc, nil
}

// enabledDrivers returns the drivers to run with their plugin config, as
// the catalog's rules say for this host (e.g. raw_exec when its config says
// enabled = true, exec when root on Linux, docker on Linux, qemu when
// installed or configured, mock_driver when it has a plugin block).
func (c *Config) enabledDrivers(isRoot bool) map[string]map[string]any {
	return c.Drivers.Enabled(base.Host{OS: runtime.GOOS, Root: isRoot}, c.PluginConfig)
}
