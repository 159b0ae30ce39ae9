// Package server wires the nomadish server: it builds the FSM over the state
// store (server/fsm), raft and serf membership (server/cluster), the RPC
// endpoints (in process and over TCP, forwarded to the leader), and the
// leader's duties (eval broker, blocked evals, plan applier, scheduler
// workers, heartbeats, node drainer, deployment watcher) from the
// server/broker, server/planapply, server/worker, server/drainer and
// server/deploymentwatcher packages, and starts and stops them.
package server
