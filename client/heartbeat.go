package client

import (
	"math/rand/v2"
	"time"

	"github.com/nomadish/nomadish/structs"
)

// Register/heartbeat retry bounds: quick at first (a dev agent's server
// elects itself within milliseconds), slower while the servers stay away.
const (
	minRetry = 50 * time.Millisecond
	maxRetry = 10 * time.Second
)

// heartbeatInterval is half the TTL minus up to 10% jitter, so heartbeats
// arrive well before the server's timer fires and clients spread out.
func heartbeatInterval(ttl time.Duration, jitter func(n int64) int64) time.Duration {
	if ttl <= 0 {
		ttl = structs.MinHeartbeatTTL
	}
	half := ttl / 2
	if j := int64(ttl / 10); j > 0 {
		half -= time.Duration(jitter(j))
	}
	return half
}

// nextBackoff doubles d within [minRetry, maxRetry].
func nextBackoff(d time.Duration) time.Duration {
	return min(max(d*2, minRetry), maxRetry)
}

// registerAndHeartbeat registers the node, then heartbeats at about half
// the TTL the server returns. It re-registers when the node changed or the
// server forgot it (404), and retries errors with backoff. After a failed
// attempt or a gap longer than the TTL, it resends every allocation's state
// (resync.go). Runs in its own
// goroutine until Shutdown; it starts the alloc watcher after the first
// registration.
func (c *Client) registerAndHeartbeat() {
	registered, watching := false, false
	backoff := time.Duration(0)
	var ttl, lastTTL time.Duration
	var lastOK time.Time // last successful register/heartbeat
	failed := false
	wait := time.Duration(0)
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
		case <-c.nodeChanged:
			registered = false
		}
		var err error
		if !registered {
			ttl, err = c.register()
			registered = err == nil
			if registered && !watching {
				watching = true
				c.wg.Go(c.watchAllocs)
			}
		} else {
			ttl, err = c.heartbeat()
			if isNotFound(err) {
				c.logger.Info("server does not know this node; registering again")
				registered, err = false, nil
				ttl = 0
			}
		}
		if now := time.Now(); err == nil && registered {
			if missedHeartbeat(lastOK, now, lastTTL, failed) {
				c.resyncAllocs()
			}
			lastOK, lastTTL = now, ttl
		}
		failed = err != nil
		switch {
		case err != nil:
			backoff = nextBackoff(backoff)
			c.logger.Warn("heartbeat/register failed", "error", err, "retry_in", backoff)
			wait = backoff
		case !registered:
			wait = 0
		default:
			backoff = 0
			wait = heartbeatInterval(ttl, rand.Int64N)
		}
		t.Reset(wait)
	}
}

// register sends Node.Register with the current node.
func (c *Client) register() (time.Duration, error) {
	node := c.Node()
	node.StatusUpdatedAt = time.Now().Unix()
	var resp structs.NodeUpdateResponse
	err := c.heartbeatRPC(structs.NodeRegisterRPC, &structs.NodeRegisterRequest{Node: node,
		WriteRequest: structs.WriteRequest{Region: c.cfg.Region, AuthToken: c.cfg.IntroToken}}, &resp)
	if err != nil {
		return 0, err
	}
	c.logger.Info("node registered", "node_id", node.ID, "heartbeat_ttl", resp.HeartbeatTTL)
	c.learnServers(resp.Servers)
	return resp.HeartbeatTTL, nil
}

// heartbeat sends Node.UpdateStatus (status ready).
func (c *Client) heartbeat() (time.Duration, error) {
	c.nodeMu.Lock()
	req := &structs.NodeUpdateStatusRequest{NodeID: c.node.ID, SecretID: c.node.SecretID,
		Status: structs.NodeStatusReady, UpdatedAt: time.Now().Unix(),
		WriteRequest: structs.WriteRequest{Region: c.cfg.Region, AuthToken: c.node.SecretID}}
	c.nodeMu.Unlock()
	var resp structs.NodeUpdateResponse
	if err := c.heartbeatRPC(structs.NodeUpdateStatusRPC, req, &resp); err != nil {
		return 0, err
	}
	c.learnServers(resp.Servers)
	return resp.HeartbeatTTL, nil
}

// reregister asks the heartbeat loop to register the node again.
func (c *Client) reregister() {
	select {
	case c.nodeChanged <- struct{}{}:
	default:
	}
}

// isNotFound reports whether err is a coded 404.
func isNotFound(err error) bool {
	if err == nil {
		return false
	}
	code, _ := structs.ErrorCode(err)
	return code == structs.ErrCodeNotFound
}
