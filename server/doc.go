// Package server is the nomadish server: raft and its FSM over the state
// store, the RPC endpoints (in process and over TCP), and the leader's duties
// (eval broker, blocked evals, plan applier, scheduler workers, heartbeats,
// node drainer), wired from the server/broker, server/planapply,
// server/worker and server/drainer packages; it keeps the clients' node
// tunnels (server/nodeconn, node_conns.go).
package server
