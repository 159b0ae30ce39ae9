// Package events is the event stream's buffer: a bounded ring of the
// batches of events the state store publishes after each committed write
// (one batch per raft index), read by subscriptions that filter by topic,
// key and namespace and may resume from an index still in the ring.
package events
