// Package state is the server's state store: go-memdb tables of jobs, nodes,
// allocations and evaluations, written only by the FSM (each write carries
// the raft index), read by RPC endpoints, the scheduler and the plan applier
// through MVCC snapshots and watch sets (blocking queries).
//
// Objects returned by reads are shared with the store: callers must not
// modify them (Copy first). Writers copy before they change a stored object.
package state
