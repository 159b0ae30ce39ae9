// Package server is the nomadish server: raft and its FSM over the state
// store, the RPC transport and dispatch (in process and over TCP, with
// forwarding to the leader) for the endpoints of server/endpoints, and the
// leader's duties (eval broker, blocked evals, plan applier, scheduler
// workers, heartbeats, deployment watcher, node drainer), wired from the
// server/broker, server/planapply, server/worker, server/deploymentwatcher
// and server/drainer packages, all on the one Config.Clock.
package server
