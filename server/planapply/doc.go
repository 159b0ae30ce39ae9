// Package planapply is the leader's plan applier: it queues plans submitted
// by scheduler workers, re-checks each node of a plan against the newest
// committed state (optimistic concurrency) and commits the part that still
// fits through raft, so no node is ever over-committed whatever the workers
// believed. evaluate.go is the pure fit check; applier.go the goroutine
// around it.
package planapply
