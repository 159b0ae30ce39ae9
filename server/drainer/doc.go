// Package drainer moves allocations off draining nodes on the leader: a pure
// core (Plan) decides which allocations to mark for migration and whether a
// node's drain is complete; Drainer is the goroutine around it that reads
// the state store, writes marks and completions through raft and wakes on
// state changes or its injected clock.
package drainer
