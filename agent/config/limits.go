package config

import "time"

// Limits is the limits block (Nomad's names and defaults): how long a new
// connection may take to start talking, and how many connections one client
// IP may hold open on the HTTP and RPC listeners. 0 disables each.
type Limits struct {
	// HTTPSHandshakeTimeout bounds a new HTTPS connection's TLS handshake
	// and the first byte of its first request (tls.http only).
	HTTPSHandshakeTimeout time.Duration
	// HTTPMaxConnsPerClient caps concurrent HTTP connections, and
	// concurrent blocking queries, per client IP.
	HTTPMaxConnsPerClient int
	// RPCHandshakeTimeout bounds a new RPC connection's first byte (and
	// its TLS handshake with tls.rpc) on a server.
	RPCHandshakeTimeout time.Duration
	// RPCMaxConnsPerClient caps concurrent RPC (and raft) connections per
	// client IP on a server.
	RPCMaxConnsPerClient int
}

// Nomad's defaults for the limits block.
const (
	DefaultHandshakeTimeout  = 5 * time.Second
	DefaultMaxConnsPerClient = 100
	// MinRPCMaxConnsPerClient: a non-zero rpc_max_conns_per_client must be
	// above it, as in Nomad (room for a client's streaming RPCs).
	MinRPCMaxConnsPerClient = 25
)

// DefaultLimits returns Nomad's defaults: 5 s handshakes, 100 connections
// per client IP on each of HTTP and RPC.
func DefaultLimits() Limits {
	return Limits{
		HTTPSHandshakeTimeout: DefaultHandshakeTimeout, HTTPMaxConnsPerClient: DefaultMaxConnsPerClient,
		RPCHandshakeTimeout: DefaultHandshakeTimeout, RPCMaxConnsPerClient: DefaultMaxConnsPerClient,
	}
}

// limitsFields are the limits block's keys.
func (c *Config) limitsFields() []field {
	return []field{
		{"limits.https_handshake_timeout", &c.Limits.HTTPSHandshakeTimeout},
		{"limits.http_max_conns_per_client", &c.Limits.HTTPMaxConnsPerClient},
		{"limits.rpc_handshake_timeout", &c.Limits.RPCHandshakeTimeout},
		{"limits.rpc_max_conns_per_client", &c.Limits.RPCMaxConnsPerClient},
	}
}

// validateLimits checks the limits block: no negative value, and a
// non-zero rpc_max_conns_per_client above MinRPCMaxConnsPerClient.
func (c *Config) validateLimits(bad func(key, format string, args ...any)) {
	l := c.Limits
	for key, d := range map[string]time.Duration{"limits.https_handshake_timeout": l.HTTPSHandshakeTimeout, "limits.rpc_handshake_timeout": l.RPCHandshakeTimeout} {
		if d < 0 {
			bad(key, "must be >= 0 (0 disables it), got %v", d)
		}
	}
	if l.HTTPMaxConnsPerClient < 0 {
		bad("limits.http_max_conns_per_client", "must be >= 0 (0 disables it), got %d", l.HTTPMaxConnsPerClient)
	}
	if n := l.RPCMaxConnsPerClient; n != 0 && n <= MinRPCMaxConnsPerClient {
		bad("limits.rpc_max_conns_per_client", "must be 0 (no limit) or > %d, got %d", MinRPCMaxConnsPerClient, n)
	}
}
