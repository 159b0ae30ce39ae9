// Package worker runs scheduler workers on the leader: each Worker dequeues
// evaluations from the eval broker, waits for the state store to catch up
// with the eval, runs the scheduler for the eval's type against a snapshot,
// and acks (or nacks) the eval. The worker is the scheduler's Planner: it
// forwards plans to the plan applier and eval updates to raft.
package worker
