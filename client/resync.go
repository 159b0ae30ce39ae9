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

// heartbeatCallTimeout bounds one server's answer to a register or
// heartbeat (above the servers' 5 s wait for a leader), so that a hung
// server is left for another well within the TTL.
const heartbeatCallTimeout = 8 * time.Second

// heartbeatRPC makes a register or heartbeat call, bounded per server by
// heartbeatCallTimeout when the RPCer supports it (a TimeoutRPCer).
func (c *Client) heartbeatRPC(method string, args, reply any) error {
	if t, ok := c.rpc.(TimeoutRPCer); ok {
		return t.RPCTimeout(method, args, reply, heartbeatCallTimeout)
	}
	return c.rpc.RPC(method, args, reply)
}
