package client

import (
	"errors"
	"time"
)

// errShuttingDown is what a blocking query returns once Shutdown began.
var errShuttingDown = errors.New("client: shutting down")

// blockingCallTimeout bounds one server's answer to a blocking query when
// the RPCer supports it (TimeoutRPCer): the longest wait (allocWatchMaxWait
// plus the servers' 1/16 jitter) and some slack; a server that holds the
// query longer is hung, and the query moves to the next server.
const blockingCallTimeout = allocWatchMaxWait + allocWatchMaxWait/16 + 15*time.Second

// blockingRPC makes a blocking query (Node.GetClientAllocs,
// Alloc.GetAllocs: the server may hold it up to MaxQueryTime, 5 minutes)
// that returns errShuttingDown as soon as Shutdown begins, so Shutdown
// waits for the loops making such queries without waiting for the server.
// An RPC cannot be interrupted: the abandoned call finishes in its own
// goroutine when the server answers or shuts down, writing into reply,
// which the caller must not read after errShuttingDown.
func (c *Client) blockingRPC(method string, args, reply any) error {
	if c.ctx.Err() != nil {
		return errShuttingDown
	}
	done := make(chan error, 1)
	go func() {
		if t, ok := c.rpc.(TimeoutRPCer); ok {
			done <- t.RPCTimeout(method, args, reply, blockingCallTimeout)
			return
		}
		done <- c.rpc.RPC(method, args, reply)
	}()
	select {
	case err := <-done:
		return err
	case <-c.ctx.Done():
		return errShuttingDown
	}
}

// NodeSecret is the node's secret: the agent's HTTP layer reads
// allocations with it on behalf of the migrate route.
func (c *Client) NodeSecret() string { return c.secret() }

// secret returns the node's SecretID, which every node RPC carries as its
// AuthToken so the servers know it comes from this node.
func (c *Client) secret() string {
	c.nodeMu.Lock()
	defer c.nodeMu.Unlock()
	return c.node.SecretID
}
