package client

import (
	"time"

	"github.com/nomadish/nomadish/structs"
)

// allocWatchMaxWait is the longest a blocking GetClientAllocs waits.
const allocWatchMaxWait = 5 * time.Minute

// watchAllocs long-polls the node's allocations (Node.GetClientAllocs as a
// blocking query), fetches those whose AllocModifyIndex moved
// (Alloc.GetAllocs) and applies them to the runners. Runs in its own
// goroutine (in c.wg) until Shutdown, which ends its queries at once
// (blockingRPC).
func (c *Client) watchAllocs() {
	var index uint64
	backoff := time.Duration(0)
	for c.ctx.Err() == nil {
		resp, err := c.getClientAllocs(index)
		if c.ctx.Err() != nil {
			return
		}
		if err == nil {
			err = c.syncAllocs(resp)
		}
		if err != nil {
			if isNotFound(err) {
				c.reregister()
			}
			backoff = nextBackoff(backoff)
			c.logger.Warn("watching allocations failed", "error", err, "retry_in", backoff)
			if !c.sleep(backoff) {
				return
			}
			continue
		}
		backoff = 0
		if index == 0 {
			known := resp.Allocs
			c.wg.Go(func() { c.sweepOrphans(known) })
		}
		if resp.Index > index {
			index = resp.Index
		}
	}
}

// sleep waits d or until Shutdown; it reports whether to go on.
func (c *Client) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.ctx.Done():
		return false
	}
}

func (c *Client) getClientAllocs(index uint64) (*structs.NodeClientAllocsResponse, error) {
	c.nodeMu.Lock()
	req := &structs.NodeSpecificRequest{NodeID: c.node.ID, SecretID: c.node.SecretID,
		QueryOptions: structs.QueryOptions{Region: c.cfg.Region, MinQueryIndex: index,
			MaxQueryTime: allocWatchMaxWait, AllowStale: true, AuthToken: c.node.SecretID}}
	c.nodeMu.Unlock()
	var resp structs.NodeClientAllocsResponse
	if err := c.blockingRPC(structs.NodeGetClientAllocsRPC, req, &resp); err != nil {
		return nil, err
	}
	return &resp, nil
}

// syncAllocs fetches the changed allocations and updates the runners.
func (c *Client) syncAllocs(resp *structs.NodeClientAllocsResponse) error {
	var pull, removed []string
	c.allocMu.Lock()
	c.migrateTokens = resp.MigrateTokens
	for id, idx := range resp.Allocs {
		if have, ok := c.allocIdx[id]; !ok || idx > have {
			pull = append(pull, id)
		}
	}
	for id := range c.allocIdx {
		if _, ok := resp.Allocs[id]; !ok {
			removed = append(removed, id)
		}
	}
	c.allocMu.Unlock()
	var allocs []*structs.Allocation
	if len(pull) > 0 {
		minIndex := resp.Index
		if minIndex > 0 {
			minIndex--
		}
		req := &structs.AllocsGetRequest{AllocIDs: pull, QueryOptions: structs.QueryOptions{
			Region: c.cfg.Region, MinQueryIndex: minIndex, MaxQueryTime: allocWatchMaxWait, AllowStale: true,
			AuthToken: c.secret()}}
		var got structs.AllocsGetResponse
		if err := c.blockingRPC(structs.AllocGetAllocsRPC, req, &got); err != nil {
			return err
		}
		allocs = got.Allocs
	}
	for _, id := range removed {
		c.removeAlloc(id)
	}
	for _, a := range allocs {
		c.applyAlloc(a)
	}
	if len(allocs) > 0 {
		c.gc.Kick() // gc.go: new allocations may take the client over gc_max_allocs
	}
	return nil
}
