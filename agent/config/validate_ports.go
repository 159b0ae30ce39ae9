package config

import "github.com/nomadish/nomadish/structs"

// validatePorts checks the client's dynamic port range and reserved ports.
func (c *Config) validatePorts(bad func(key, format string, args ...any)) {
	lo, hi := c.Client.MinDynamicPort, c.Client.MaxDynamicPort
	for key, p := range map[string]int{"client.min_dynamic_port": lo, "client.max_dynamic_port": hi} {
		if p < 0 || p > structs.MaxValidPort {
			bad(key, "must be 0-%d, got %d", structs.MaxValidPort, p)
		}
	}
	if (lo == 0) != (hi == 0) {
		key := "client.max_dynamic_port"
		if lo == 0 {
			key = "client.min_dynamic_port"
		}
		bad(key, "set both client.min_dynamic_port and client.max_dynamic_port, or neither")
	} else if lo > hi {
		bad("client.max_dynamic_port", "must be at least client.min_dynamic_port (%d), got %d", lo, hi)
	}
	if c.Client.ReservedPorts != "" {
		if _, err := structs.ParsePortRanges(c.Client.ReservedPorts); err != nil {
			bad("client.reserved.reserved_ports", "%v", err)
		}
	}
}
