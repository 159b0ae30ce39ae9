// Package nodeconn is the servers' side of node tunnels: it keeps the
// connection each client opened to a server (RPCNodeTunnel, checked against
// the node's SecretID) in a registry by node ID, and gives any server a
// net.Conn to any connected node's client-only HTTP API: through the tunnel
// it holds, or by asking the other servers (RPCNodeDial, one hop at most).
// The agent reverse-proxies client requests (logs, fs, exec, stats, signal,
// restart) for allocations of other nodes over these connections, so a
// client behind NAT is reachable as long as it reaches a server.
package nodeconn
