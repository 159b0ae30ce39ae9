// Package deploymentwatcher follows the running deployments on the leader:
// it creates the evals that continue a rollout as allocations become
// healthy, promotes canaries that auto-promote, and marks a deployment
// successful (the job version stable) or failed (unhealthy allocs, progress
// deadline), re-registering the latest stable version on auto-revert.
//
// Decide (core.go) is pure: a deployment, its allocs and the time in, the
// actions out. Watcher (watcher.go) is the goroutine around it: it reads
// deployments with blocking watches on the state store and commits the
// actions through raft.
package deploymentwatcher
