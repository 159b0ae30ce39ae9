// Package allocgc is the client's garbage collector: it decides which
// terminal allocations to destroy (their tasks' leftovers, alloc dir and
// stored state) and when, as Nomad's client does. The rules (rules.go)
// are pure functions of the allocations, the alloc dir's disk usage and
// the configuration; the Collector (collector.go) is the one goroutine
// shell around them that the client owns, with the destroy concurrency
// bound that every destroy goes through.
package allocgc
