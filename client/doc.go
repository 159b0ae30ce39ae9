// Package client is the node agent: it fingerprints the machine, runs the
// driver plugins, registers the node and heartbeats, watches the node's
// allocations with a blocking query, runs an alloc runner per allocation
// and reports their states back in batches. It keeps a node tunnel to a
// server (tunnel.go), over which any server reaches its client-only HTTP
// endpoints (logs, fs, exec, stats, signal, restart). Everything it writes
// lives under its own data dir, so several clients can share a machine.
package client
