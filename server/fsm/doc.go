// Package fsm is the server's raft FSM: it decodes each committed raft
// entry (a structs.MessageType byte, then msgpack) and applies it to the
// state store with one applyX per message type, grouped by domain
// (job.go, node.go, alloc.go, ...), and it snapshots and restores the
// store. It imports only server/state and structs (TestDepsFSM): the server
// learns of writes through the store's state.Notifier, never through the
// FSM.
package fsm
