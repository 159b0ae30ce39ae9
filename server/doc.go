// Package server wires the nomadish server: it builds the FSM over the state
// store (server/fsm), raft and serf membership (server/cluster), the RPC
// transport (server/rpcserver: the RPC port, dispatch and forwarding to the
// leader) with the endpoints of server/endpoints registered on it, the
// clients' node tunnels (server/nodeconn), and the leader's duties (eval
// broker, blocked evals, plan applier, scheduler workers, heartbeats, node
// drainer, deployment watcher) from the server/broker, server/planapply,
// server/worker, server/heartbeat, server/drainer and
// server/deploymentwatcher packages, all on the one Config.Clock, and starts
// and stops them. Server.RPC is the in-process entry point (the agent's
// HTTP API, an in-process client).
package server
