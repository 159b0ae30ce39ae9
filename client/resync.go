package client

import (
	"time"

	"github.com/nomadish/nomadish/structs"
)

// missedHeartbeat is the pure rule for resending every allocation's state
// after a successful heartbeat or registration: the previous attempt failed,
// or the last success is older than its TTL (the process was stopped or
// the network away), so the servers may have marked the node disconnected
// and its allocations unknown. The first registration (lastOK zero) does
// not count; a TTL of 0 (none given) means structs.MinHeartbeatTTL.
func missedHeartbeat(lastOK, now time.Time, ttl time.Duration, prevFailed bool) bool {
	if lastOK.IsZero() {
		return false
	}
	if ttl <= 0 {
		ttl = structs.MinHeartbeatTTL
	}
	return prevFailed || now.Sub(lastOK) > ttl
}

// resyncAllocs queues every alloc runner's current state for the servers.
func (c *Client) resyncAllocs() {
	c.allocMu.Lock()
	defer c.allocMu.Unlock()
	for _, ar := range c.allocs {
		ar.Resend()
	}
	c.logger.Info("heartbeat resumed after a gap: resent the state of every allocation", "allocs", len(c.allocs))
}
