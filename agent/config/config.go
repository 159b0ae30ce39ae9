// Package config is the agent's configuration: Nomad's HCL agent config
// keys for what nomadish implements, defaults, -dev defaults, merging of
// several sources, and validation that names the key (and file:line:col).
package config

import (
	"net"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/nomadish/nomadish/internal/tlsutil"
)

// Config is the agent's configuration. Build it with DefaultConfig or
// DevConfig, overlay files with LoadFile + Merge, then Validate.
type Config struct {
	Name       string // node name; defaults to the hostname
	Region     string
	Datacenter string
	DataDir    string // required unless DevMode
	BindAddr   string
	LogLevel   string

	Advertise Addresses // addresses others use to reach this agent ("host" or "host:port")
	Addresses Addresses // per-protocol bind hosts overriding BindAddr
	Ports     Ports

	Server ServerConfig
	Client ClientConfig
	TLS    tlsutil.Config // the tls block (validate_tls.go)
	Limits Limits         // the limits block (limits.go)
	ACL    ACLConfig      // the acl block (validate_acl.go)

	Telemetry Telemetry // the telemetry block (telemetry.go)
	UI        UI        // the ui block (ui.go)

	// Plugins is the plugin blocks by name: plugin "raw_exec" { config { enabled = true } }.
	Plugins map[string]*PluginConfig

	// HTTPAPIAllowedOrigins is http_api_allowed_origins: browser origins
	// besides the agent's own that may change state (validate_origins.go).
	HTTPAPIAllowedOrigins []string

	// EnableDebug is enable_debug: the HTTP API serves Go's profiles under
	// /debug/pprof/ (agent/http_debug.go).
	EnableDebug bool

	// DevMode is set by DevConfig only: in-memory raft, temporary client dirs.
	DevMode bool

	// Autopilot is the autopilot block's initial configuration (autopilot.go).
	Autopilot Autopilot

	// set records the keys ("ports.http") a file set explicitly, with where,
	// so Merge can tell "set to zero" from "absent" and Validate can point
	// at the line.
	set map[string]hcl.Range
}

// Addresses holds one value per protocol.
type Addresses struct {
	HTTP string
	RPC  string
	Serf string
}

// Ports holds the port of each protocol.
type Ports struct {
	HTTP int
	RPC  int
	Serf int
}

// ServerConfig is the server block.
type ServerConfig struct {
	Enabled         bool
	BootstrapExpect int
	NumSchedulers   int
	HeartbeatGrace  time.Duration

	// Gossip (serf) and joining, Nomad's keys: server { encrypt,
	// server_join { start_join retry_join retry_interval retry_max } }
	// (cluster.go validates them).
	Encrypt       string
	StartJoin     []string
	RetryJoin     []string
	RetryInterval time.Duration
	RetryMax      int
	// autopilot { cleanup_dead_servers, dead_server_grace }: the leader
	// removes a server serf reports failed for longer than the grace.
	CleanupDeadServers bool
	DeadServerGrace    time.Duration
	// MinHeartbeatTTL and MaxHeartbeatsPerSecond shape client heartbeat
	// TTLs: max(min_heartbeat_ttl, nodes/max_heartbeats_per_second) plus
	// jitter (0: 10s and 50).
	MinHeartbeatTTL        time.Duration
	MaxHeartbeatsPerSecond int

	// Raft durability (Nomad's names; 0 keeps raft's default): see
	// cluster.RaftConfig (server/cluster) and validate_raft.go.
	RaftSnapshotThreshold int
	RaftSnapshotInterval  time.Duration
	RaftTrailingLogs      int
	// RaftBoltNoFreelistSync is raft_boltdb { no_freelist_sync }.
	RaftBoltNoFreelistSync bool

	// JobMaxCount (job_max_count) is the most allocations one job may ask
	// for, its groups' counts summed (0: structs.DefaultJobMaxCount); see
	// validate_job_limits.go.
	JobMaxCount int
	// JobMaxSourceSize (job_max_source_size, "1M", "512KiB") bounds a job
	// source kept with its version ("": structs.DefaultJobMaxSourceSize);
	// see validate_job_limits.go.
	JobMaxSourceSize string
	// Node authentication and restore limits (validate_nodeauth.go):
	// client_introduction { enforcement tokens } and
	// snapshot_restore_max_mb.
	ClientIntroEnforcement string
	ClientIntroTokens      []string
	SnapshotRestoreMaxMB   int
	// GC is the garbage collection keys (job_gc_interval, *_gc_threshold;
	// gc.go).
	GC GCConfig
	// EventBufferSize (event_buffer_size) is how many raft indexes' events
	// the event stream keeps (default 100, Nomad's; 0 disables the stream).
	EventBufferSize int
}

// ClientConfig is the client block.
type ClientConfig struct {
	Enabled   bool
	Servers   []string // "host:port" of servers' RPC
	NodeClass string
	// NodePool is client { node_pool = "x" }: the node pool the node
	// registers in ("" is "default"); an unknown pool is created.
	NodePool string
	Meta     map[string]string
	StateDir string // default <data_dir>/client
	AllocDir string // default <data_dir>/alloc

	// MinDynamicPort and MaxDynamicPort bound the ports the scheduler picks
	// for `port "x" {}` (0: Nomad's 20000-32000).
	MinDynamicPort int
	MaxDynamicPort int
	// ReservedPorts is client { reserved { reserved_ports = "22,80" } }:
	// host ports no allocation may take.
	ReservedPorts string
	// ReservedCores is client { reserved { cores = "0-1" } }: a cpuset of
	// cores kept from scheduling (Disabled in the node's topology).
	ReservedCores string
	// ReservableCores is client { reservable_cores = "2-15" }: when set,
	// the only cores the scheduler may reserve.
	ReservableCores string
	// SysfsRoot is client { sysfs_root = "/sys" }: where the CPU/NUMA
	// topology is read from (tests, the simulator and containers point it
	// at another machine's tree).
	SysfsRoot string
	// IntroToken is client { intro_token }: the client introduction token
	// sent when the node registers for the first time.
	IntroToken string
	// Artifact is client { artifact { ... } } (artifact.go).
	Artifact ArtifactConfig
	// HostVolumes are the host_volume blocks (host_volumes.go).
	HostVolumes []HostVolume
	// Network is the bridge and CNI keys, HostNetworks the host_network
	// blocks (network.go).
	Network      NetworkConfig
	HostNetworks []HostNetwork
	// GC is the client's garbage collection keys (client_gc.go).
	GC ClientGCConfig
}

// ACLConfig is the acl block, Nomad's keys: enabled turns token checks
// on; the TTLs say how long clients cache resolved tokens, policies and
// roles; token_min/max_expiration_ttl bound a new token's expiration.
type ACLConfig struct {
	Enabled               bool
	TokenTTL              time.Duration
	PolicyTTL             time.Duration
	RoleTTL               time.Duration
	TokenMinExpirationTTL time.Duration
	TokenMaxExpirationTTL time.Duration
}

// PluginConfig is one plugin block.
type PluginConfig struct {
	Name   string
	Config map[string]any // generic, as jobspec decodes a task's config
}

// Default ports, as in Nomad.
const (
	DefaultHTTPPort = 4646
	DefaultRPCPort  = 4647
	DefaultSerfPort = 4648
)

// DefaultConfig returns Nomad's defaults: neither server nor client enabled,
// bind 0.0.0.0, ports 4646/4647/4648, region global, datacenter dc1, and
// sysfs at /sys.
func DefaultConfig() *Config {
	name, _ := os.Hostname()
	return &Config{
		Name:       name,
		Region:     "global",
		Datacenter: "dc1",
		BindAddr:   "0.0.0.0",
		LogLevel:   "INFO",
		Ports:      Ports{HTTP: DefaultHTTPPort, RPC: DefaultRPCPort, Serf: DefaultSerfPort},
		Server:     ServerConfig{BootstrapExpect: 1, NumSchedulers: runtime.NumCPU(), HeartbeatGrace: 10 * time.Second, CleanupDeadServers: true, DeadServerGrace: time.Minute, RetryInterval: 5 * time.Second, EventBufferSize: 100},
		Client:     ClientConfig{Meta: map[string]string{}, SysfsRoot: "/sys", GC: DefaultClientGC()},
		Plugins:    map[string]*PluginConfig{},
		Limits:     DefaultLimits(),
		ACL: ACLConfig{TokenTTL: 30 * time.Second, PolicyTTL: 30 * time.Second, RoleTTL: 30 * time.Second,
			TokenMinExpirationTTL: time.Minute, TokenMaxExpirationTTL: 24 * time.Hour},
		Telemetry: DefaultTelemetry(),
		UI:        DefaultUI(),
	}
}

// DevConfig returns the -dev configuration: server and client in one
// process on 127.0.0.1, bootstrap_expect 1, raw_exec enabled, DEBUG logs,
// and no data_dir (the agent keeps raft in memory and puts client state in
// a temporary directory it creates).
func DevConfig() *Config {
	c := DefaultConfig()
	c.DevMode = true
	c.BindAddr = "127.0.0.1"
	c.LogLevel = "DEBUG"
	c.Server.Enabled = true
	c.Server.BootstrapExpect = 1
	c.Client.Enabled = true
	c.Plugins["raw_exec"] = &PluginConfig{Name: "raw_exec", Config: map[string]any{"enabled": true}}
	// As Nomad's -dev: Prometheus output and the node and allocation gauges on.
	c.Telemetry.PrometheusMetrics, c.Telemetry.PublishNodeMetrics, c.Telemetry.PublishAllocationMetrics = true, true, true
	return c
}

// Addr returns the "host:port" an agent listens on for kind "http", "rpc"
// or "serf": the addresses block's host, else bind_addr, and the kind's port.
// It returns "" for another kind.
func (c *Config) Addr(kind string) string {
	host, port, ok := c.pick(kind, c.Addresses)
	if !ok {
		return ""
	}
	if host == "" {
		host = c.BindAddr
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// AdvertiseAddr returns the "host:port" others should use for kind: the
// advertise block's value (with the kind's port added when it has none),
// else Addr(kind).
func (c *Config) AdvertiseAddr(kind string) string {
	adv, port, ok := c.pick(kind, c.Advertise)
	if !ok {
		return ""
	}
	if adv == "" {
		return c.Addr(kind)
	}
	if _, _, err := net.SplitHostPort(adv); err == nil {
		return adv
	}
	return net.JoinHostPort(adv, strconv.Itoa(port))
}

func (c *Config) pick(kind string, a Addresses) (string, int, bool) {
	switch kind {
	case "http":
		return a.HTTP, c.Ports.HTTP, true
	case "rpc":
		return a.RPC, c.Ports.RPC, true
	case "serf":
		return a.Serf, c.Ports.Serf, true
	}
	return "", 0, false
}
