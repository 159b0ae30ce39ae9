package config

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nomadish/nomadish/internal/hclutil"
	"github.com/nomadish/nomadish/structs"
)

var logLevels = map[string]bool{"TRACE": true, "DEBUG": true, "INFO": true, "WARN": true, "ERROR": true, "OFF": true}

// Validate checks c and returns every problem found, one per line, each
// naming the key ("ports.http: must be 0-65535, got -1") and, when a file set
// it, prefixed with its "path:line:col".
func (c *Config) Validate() error {
	var errs []string
	bad := func(key, format string, args ...any) {
		msg := key + ": " + fmt.Sprintf(format, args...)
		if rng, ok := c.set[key]; ok {
			msg = hclutil.Pos(rng) + ": " + msg
		}
		errs = append(errs, msg)
	}
	for _, kv := range []struct {
		key  string
		port int
	}{{"ports.http", c.Ports.HTTP}, {"ports.rpc", c.Ports.RPC}, {"ports.serf", c.Ports.Serf}} {
		// 0 means "any free port" (tests and side-by-side agents use it).
		if kv.port < 0 || kv.port > 65535 {
			bad(kv.key, "must be 0-65535, got %d", kv.port)
		}
	}
	if c.Name == "" {
		bad("name", "must not be empty")
	}
	if c.Region == "" || strings.ContainsAny(c.Region, " \t") {
		bad("region", "must be a non-empty name without spaces, got %q", c.Region)
	}
	if c.Datacenter == "" || strings.ContainsAny(c.Datacenter, " \t*") {
		bad("datacenter", "must be a non-empty name without spaces or '*', got %q", c.Datacenter)
	}
	if net.ParseIP(c.BindAddr) == nil {
		bad("bind_addr", "must be an IP address, got %q", c.BindAddr)
	}
	for key, host := range map[string]string{"addresses.http": c.Addresses.HTTP, "addresses.rpc": c.Addresses.RPC, "addresses.serf": c.Addresses.Serf} {
		if host != "" && net.ParseIP(host) == nil {
			bad(key, "must be an IP address, got %q", host)
		}
	}
	if !logLevels[strings.ToUpper(c.LogLevel)] {
		bad("log_level", "must be one of trace, debug, info, warn, error, off; got %q", c.LogLevel)
	}
	c.validateRoles(bad)
	c.validateTLS(bad)
	c.validateOrigins(bad)
	c.validateACL(bad)
	c.validateLimits(bad)
	c.validateArtifact(bad) // artifact.go
	c.validateHostVolumes(bad)
	c.validateNetwork(bad)   // network.go
	c.validateClientGC(bad)  // client_gc.go
	c.validateTelemetry(bad) // telemetry.go
	c.validateAutopilot(bad) // autopilot.go
	if len(errs) == 0 {
		return nil
	}
	sort.Strings(errs) // stable output: some checks iterate maps
	return errors.New(strings.Join(errs, "\n"))
}

func (c *Config) validateRoles(bad func(key, format string, args ...any)) {
	if !c.Server.Enabled && !c.Client.Enabled {
		bad("server.enabled", "either server.enabled or client.enabled must be true")
	}
	if !c.DevMode && (c.Server.Enabled || c.Client.Enabled) {
		if c.DataDir == "" {
			bad("data_dir", "required when the server or client is enabled (outside -dev)")
		} else if !filepath.IsAbs(c.DataDir) {
			bad("data_dir", "must be an absolute path, got %q", c.DataDir)
		}
	}
	if c.Server.BootstrapExpect < 0 {
		bad("server.bootstrap_expect", "can't be negative, got %d", c.Server.BootstrapExpect)
	}
	if c.DevMode && c.Server.Enabled && c.Server.BootstrapExpect > 1 {
		bad("server.bootstrap_expect", "must be 1 in -dev mode, got %d", c.Server.BootstrapExpect)
	}
	c.validateCluster(bad)
	if c.Server.NumSchedulers < 0 {
		bad("server.num_schedulers", "can't be negative, got %d", c.Server.NumSchedulers)
	}
	if c.Server.HeartbeatGrace < 0 {
		bad("server.heartbeat_grace", "can't be negative, got %s", c.Server.HeartbeatGrace)
	}
	if c.Server.MinHeartbeatTTL < 0 {
		bad("server.min_heartbeat_ttl", "can't be negative, got %s", c.Server.MinHeartbeatTTL)
	}
	if c.Server.MaxHeartbeatsPerSecond < 0 {
		bad("server.max_heartbeats_per_second", "can't be negative, got %d", c.Server.MaxHeartbeatsPerSecond)
	}
	c.validatePorts(bad)
	c.validateCores(bad)
	if p := c.Client.NodePool; p != "" {
		if err := (&structs.NodePool{Name: p}).Validate(); err != nil {
			bad("client.node_pool", "%v", err)
		} else if p == structs.NodePoolAll {
			bad("client.node_pool", "a node can not be in the %q node pool", p)
		}
	}
	c.validateRaft(bad)
	c.validateJobLimits(bad) // validate_job_limits.go
	c.validateGC(bad)        // gc.go
	if c.Server.EventBufferSize < 0 {
		bad("server.event_buffer_size", "must be 0 (no event stream) or more, got %d", c.Server.EventBufferSize)
	}
	c.validateNodeAuth(bad)
	if c.Client.Enabled && !c.Server.Enabled && len(c.Client.Servers) == 0 {
		bad("client.servers", "required when the client runs without a local server")
	}
	for _, s := range c.Client.Servers {
		if _, _, err := net.SplitHostPort(s); err != nil {
			if strings.TrimSpace(s) == "" || strings.ContainsAny(s, " /") {
				bad("client.servers", "%q is not a host or host:port", s)
			}
		}
	}
	for key, dir := range map[string]string{"client.state_dir": c.Client.StateDir, "client.alloc_dir": c.Client.AllocDir} {
		if dir != "" && !filepath.IsAbs(dir) {
			bad(key, "must be an absolute path, got %q", dir)
		}
	}
}
