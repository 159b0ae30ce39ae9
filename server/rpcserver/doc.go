// Package rpcserver is a server's RPC transport: it owns the RPC port's
// listener and connections, tells the protocols apart by their first byte
// (msgpack net/rpc, yamux-multiplexed net/rpc, TLS around either, and the
// raft and node-tunnel bytes, handed to raft's stream layer and to the
// node-tunnel registry), bounds each request by a byte budget and each
// client address by a connection limit, and dispatches every call, from
// the port or in process, through one method table (localRPC: decoded-args
// check, panic recovery), forwarding what the leader must answer (with a
// hold timeout while there is none). The server's wiring gives it a small
// Config and registers the endpoints; it knows nothing of state or raft.
package rpcserver
