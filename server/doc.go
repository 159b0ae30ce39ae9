// Package server wires the nomadish server: it builds the FSM over the state
// store (server/fsm), raft and serf membership (server/cluster), the RPC
// transport and dispatch (in process and over TCP, forwarded to the leader)
// for the endpoints of server/endpoints, and the leader's duties (eval
// broker, blocked evals, plan applier, scheduler workers, heartbeats, node
// drainer, deployment watcher) from the server/broker, server/planapply,
// server/worker, server/drainer and server/deploymentwatcher packages, all
// on the one Config.Clock, and starts and stops them; it keeps the clients'
// node tunnels (server/nodeconn, node_conns.go).
package server
