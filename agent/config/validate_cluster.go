package config

import (
	"encoding/base64"
	"net"
	"strings"
)

// validateCluster checks the gossip and join keys of the server block.
func (c *Config) validateCluster(bad func(key, format string, args ...any)) {
	if k := c.Server.Encrypt; k != "" {
		b, err := base64.StdEncoding.DecodeString(k)
		if err != nil {
			bad("server.encrypt", "must be base64 (create one with `nomadish operator gossip keyring generate`): %v", err)
		} else if l := len(b); l != 16 && l != 24 && l != 32 {
			bad("server.encrypt", "must decode to 16, 24 or 32 bytes, got %d", l)
		}
	}
	for key, list := range map[string][]string{"server.server_join.start_join": c.Server.StartJoin, "server.server_join.retry_join": c.Server.RetryJoin} {
		for _, a := range list {
			if _, _, err := net.SplitHostPort(a); err != nil && (strings.TrimSpace(a) == "" || strings.ContainsAny(a, " /")) {
				bad(key, "%q is not a host or host:port", a)
			}
		}
	}
	if c.Server.RetryInterval < 0 {
		bad("server.server_join.retry_interval", "can't be negative, got %s", c.Server.RetryInterval)
	}
	if c.Server.RetryMax < 0 {
		bad("server.server_join.retry_max", "can't be negative, got %d", c.Server.RetryMax)
	}
	if c.Server.DeadServerGrace < 0 {
		bad("autopilot.dead_server_grace", "can't be negative, got %s", c.Server.DeadServerGrace)
	}
}
