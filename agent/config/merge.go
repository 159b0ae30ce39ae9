package config

import (
	"maps"
	"reflect"
	"slices"

	"github.com/hashicorp/hcl/v2"
)

// field ties a config key ("ports.http") to the field holding it.
type field struct {
	key string
	ptr any // *string, *int, *float64, *bool, *[]string, *map[string]string, *time.Duration
}

// fields lists every keyed field of c; LoadFile, Merge and Validate share it.
func (c *Config) fields() []field {
	return append(append(append(append(append(append(c.limitsFields(), c.artifactFields()...), c.networkFields()...), c.gcFields()...), c.telemetryFields()...), c.autopilotFields()...), append(c.uiFields(), []field{
		{"name", &c.Name}, {"region", &c.Region}, {"datacenter", &c.Datacenter},
		{"data_dir", &c.DataDir}, {"bind_addr", &c.BindAddr}, {"log_level", &c.LogLevel},
		{"advertise.http", &c.Advertise.HTTP}, {"advertise.rpc", &c.Advertise.RPC}, {"advertise.serf", &c.Advertise.Serf},
		{"addresses.http", &c.Addresses.HTTP}, {"addresses.rpc", &c.Addresses.RPC}, {"addresses.serf", &c.Addresses.Serf},
		{"ports.http", &c.Ports.HTTP}, {"ports.rpc", &c.Ports.RPC}, {"ports.serf", &c.Ports.Serf},
		{"server.enabled", &c.Server.Enabled}, {"server.bootstrap_expect", &c.Server.BootstrapExpect},
		{"server.num_schedulers", &c.Server.NumSchedulers}, {"server.heartbeat_grace", &c.Server.HeartbeatGrace},
		{"server.min_heartbeat_ttl", &c.Server.MinHeartbeatTTL}, {"server.max_heartbeats_per_second", &c.Server.MaxHeartbeatsPerSecond},
		{"server.raft_snapshot_threshold", &c.Server.RaftSnapshotThreshold}, {"server.raft_snapshot_interval", &c.Server.RaftSnapshotInterval}, {"server.raft_trailing_logs", &c.Server.RaftTrailingLogs},
		{"server.job_max_count", &c.Server.JobMaxCount}, {"server.job_max_source_size", &c.Server.JobMaxSourceSize},
		{"server.encrypt", &c.Server.Encrypt}, {"server.server_join.start_join", &c.Server.StartJoin},
		{"server.server_join.retry_join", &c.Server.RetryJoin}, {"server.server_join.retry_interval", &c.Server.RetryInterval},
		{"server.server_join.retry_max", &c.Server.RetryMax},
		{"autopilot.cleanup_dead_servers", &c.Server.CleanupDeadServers}, {"autopilot.dead_server_grace", &c.Server.DeadServerGrace},
		{"client.enabled", &c.Client.Enabled}, {"client.servers", &c.Client.Servers},
		{"client.node_class", &c.Client.NodeClass}, {"client.node_pool", &c.Client.NodePool}, {"client.meta", &c.Client.Meta},
		{"client.state_dir", &c.Client.StateDir}, {"client.alloc_dir", &c.Client.AllocDir},
		{"client.min_dynamic_port", &c.Client.MinDynamicPort}, {"client.max_dynamic_port", &c.Client.MaxDynamicPort},
		{"client.reserved.reserved_ports", &c.Client.ReservedPorts},
		{"client.reserved.cores", &c.Client.ReservedCores}, {"client.reservable_cores", &c.Client.ReservableCores},
		{"http_api_allowed_origins", &c.HTTPAPIAllowedOrigins},
		{"client.sysfs_root", &c.Client.SysfsRoot}, {"client.intro_token", &c.Client.IntroToken},
		{"server.client_introduction.enforcement", &c.Server.ClientIntroEnforcement},
		{"server.client_introduction.tokens", &c.Server.ClientIntroTokens}, {"server.snapshot_restore_max_mb", &c.Server.SnapshotRestoreMaxMB},
		{"acl.enabled", &c.ACL.Enabled}, {"acl.token_ttl", &c.ACL.TokenTTL}, {"acl.policy_ttl", &c.ACL.PolicyTTL},
		{"acl.role_ttl", &c.ACL.RoleTTL}, {"acl.token_min_expiration_ttl", &c.ACL.TokenMinExpirationTTL},
		{"acl.token_max_expiration_ttl", &c.ACL.TokenMaxExpirationTTL},
		{"tls.http", &c.TLS.HTTP}, {"tls.rpc", &c.TLS.RPC}, {"tls.ca_file", &c.TLS.CAFile}, {"tls.cert_file", &c.TLS.CertFile}, {"tls.key_file", &c.TLS.KeyFile}, {"tls.verify_server_hostname", &c.TLS.VerifyServerHostname}, {"tls.verify_https_client", &c.TLS.VerifyHTTPSClient},
		{"client.gc_interval", &c.Client.GC.Interval}, {"client.gc_disk_usage_threshold", &c.Client.GC.DiskUsageThreshold}, // client_gc.go
		{"client.gc_inode_usage_threshold", &c.Client.GC.InodeUsageThreshold}, {"client.gc_max_allocs", &c.Client.GC.MaxAllocs},
		{"client.gc_parallel_destroys", &c.Client.GC.ParallelDestroys},
		{"server.event_buffer_size", &c.Server.EventBufferSize},
		{"enable_debug", &c.EnableDebug},
		{"server.raft_boltdb.no_freelist_sync", &c.Server.RaftBoltNoFreelistSync},
	}...)...)
}

// Merge returns a new config: c overlaid with o. A field of o wins when o's
// file set it explicitly (even to false, 0 or "") or, for a config built in
// code, when it is non-zero. client.meta merges key by key; plugins merge by
// name (o's block replaces c's). Neither c nor o is modified.
func (c *Config) Merge(o *Config) *Config {
	out := c.Copy()
	if o == nil {
		return out
	}
	ofs, outfs := o.fields(), out.fields()
	for i, f := range ofs {
		rng, explicit := o.set[f.key]
		src := reflect.ValueOf(f.ptr).Elem()
		if !explicit && src.IsZero() {
			continue
		}
		dst := reflect.ValueOf(outfs[i].ptr).Elem()
		switch v := f.ptr.(type) {
		case *map[string]string:
			m := dst.Interface().(map[string]string)
			if m == nil {
				m = map[string]string{}
			}
			maps.Copy(m, *v)
			dst.Set(reflect.ValueOf(m))
		case *[]string:
			dst.Set(reflect.ValueOf(slices.Clone(*v)))
		default:
			dst.Set(src)
		}
		if explicit {
			out.set[f.key] = rng
		}
	}
	for name, p := range o.Plugins {
		out.Plugins[name] = mergePlugin(out.Plugins[name], p)
	}
	out.Client.HostVolumes = mergeHostVolumes(c.Client.HostVolumes, o.Client.HostVolumes)
	out.Client.HostNetworks = mergeHostNetworks(c.Client.HostNetworks, o.Client.HostNetworks) // network.go
	out.DevMode = c.DevMode || o.DevMode
	return out
}

// Copy returns a deep copy of c.
func (c *Config) Copy() *Config {
	out := *c
	out.Client.Servers = slices.Clone(c.Client.Servers)
	out.Server.StartJoin, out.Server.RetryJoin = slices.Clone(c.Server.StartJoin), slices.Clone(c.Server.RetryJoin)
	out.Client.Meta = maps.Clone(c.Client.Meta)
	out.Client.HostVolumes = slices.Clone(c.Client.HostVolumes)
	out.Client.HostNetworks = slices.Clone(c.Client.HostNetworks)
	out.Server.ClientIntroTokens = slices.Clone(c.Server.ClientIntroTokens)
	out.Telemetry.PrefixFilter = slices.Clone(c.Telemetry.PrefixFilter)
	out.Plugins = make(map[string]*PluginConfig, len(c.Plugins))
	for name, p := range c.Plugins {
		out.Plugins[name] = p.copy()
	}
	out.set = make(map[string]hcl.Range, len(c.set))
	maps.Copy(out.set, c.set)
	return &out
}

func (p *PluginConfig) copy() *PluginConfig {
	if p == nil {
		return nil
	}
	return &PluginConfig{Name: p.Name, Config: deepCopyAny(p.Config).(map[string]any)}
}

func deepCopyAny(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopyAny(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopyAny(e)
		}
		return out
	}
	return v
}

// mergePlugin merges o's plugin config over base's key by key, so a file that
// sets one option of a plugin the dev defaults configure keeps the others
// (for example raw_exec's enabled = true).
func mergePlugin(base, o *PluginConfig) *PluginConfig {
	out := o.copy()
	if base == nil || out == nil {
		return out
	}
	merged := deepCopyAny(base.Config).(map[string]any)
	for k, v := range out.Config {
		merged[k] = v
	}
	out.Config = merged
	return out
}
