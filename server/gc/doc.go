// Package gc decides what the leader's garbage collector deletes: a pure
// Collect (objects of the state, now, thresholds -> what to delete and
// why) following Nomad's core scheduler rules, the batching of that into
// bounded raft entries, and the index-to-time table deployment ages are
// read from. The goroutine that runs it every job_gc_interval and commits
// the batches is the server's (server/leader_gc.go).
package gc
