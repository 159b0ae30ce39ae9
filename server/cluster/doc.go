// Package cluster is the server's membership: raft set-up over the FSM
// (the bbolt log on disk, all in memory in dev mode, the transport over the
// RPC port), serf gossip among servers (join, retry_join, the keyring),
// the bootstrap once bootstrap_expect servers joined, raft peers kept in
// step with serf on the leader with autopilot's dead-server cleanup, and
// leader tracking. The server wires it (New, StartGossip, Shutdown);
// endpoints and the agent read members, peers and the raft configuration
// through its methods.
package cluster
