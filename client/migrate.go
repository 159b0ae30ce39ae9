package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/nomadish/nomadish/client/allocdir"
	"github.com/nomadish/nomadish/client/allocmigrate"
	"github.com/nomadish/nomadish/structs"
)

// Migrating ephemeral disks across nodes (ephemeral_disk { migrate = true }):
// a replacement placed on another node than its previous allocation fetches
// that allocation's alloc/data and tasks' local/ dirs through this agent's
// HTTP API (GET /v1/client/allocation/:id/snapshot, which any agent forwards
// to the node holding it), once the previous allocation has stopped. The
// request carries the migrate token the servers gave for the replacement
// (Node.GetClientAllocs' MigrateTokens) as X-Nomad-Token, which the
// holding node checks with its own secret (ACLs on), and speaks HTTPS with
// Config.HTTPTLS when the agent serves HTTPS.

const (
	// migrateStopWait bounds the wait for the previous allocation to stop
	// before its data is fetched anyway.
	migrateStopWait = time.Minute
	// migrateFetchTimeout bounds the whole download.
	migrateFetchTimeout = 10 * time.Minute
)

// fetchPrevious restores allocation prevID's migrating data into dir for
// allocation allocID (the allocrunner's Config.FetchPrevious). maxBytes caps
// the file contents (the group's ephemeral disk size). Called from the
// alloc runner's fetching goroutine.
func (c *Client) fetchPrevious(allocID, prevID string, dir *allocdir.AllocDir, tasks []string, maxBytes int64) error {
	if c.cfg.HTTPAddr == "" {
		return fmt.Errorf("no HTTP address to fetch allocation %s's data through", prevID)
	}
	c.waitStopped(prevID)
	ctx, cancel := context.WithTimeout(c.ctx, migrateFetchTimeout)
	defer cancel()
	resp, err := c.getSnapshot(ctx, prevID, c.migrateToken(allocID))
	if err != nil {
		return fmt.Errorf("fetching allocation %s's data: %w", prevID, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return fmt.Errorf("fetching allocation %s's data: %s: %s", prevID, resp.Status, b)
	}
	if err := allocmigrate.Restore(resp.Body, dir.Dir, tasks, maxBytes); err != nil {
		return fmt.Errorf("restoring allocation %s's data: %w", prevID, err)
	}
	return nil
}

// getSnapshot sends GET /v1/client/allocation/prevID/snapshot to this
// agent's HTTP API (HTTPS with Config.HTTPTLS) with token, if any.
func (c *Client) getSnapshot(ctx context.Context, prevID, token string) (*http.Response, error) {
	scheme, hc := "http://", http.DefaultClient
	if c.cfg.HTTPTLS != nil {
		scheme = "https://"
		hc = &http.Client{Transport: &http.Transport{TLSClientConfig: c.cfg.HTTPTLS}}
		defer hc.CloseIdleConnections()
	}
	url := scheme + c.cfg.HTTPAddr + "/v1/client/allocation/" + prevID + "/snapshot"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if token != "" {
		req.Header.Set("X-Nomad-Token", token)
	}
	return hc.Do(req)
}

// migrateToken is the migrate token the servers gave for allocation id,
// "" when none (ACLs off on an older server, or no previous node).
func (c *Client) migrateToken(id string) string {
	c.allocMu.Lock()
	defer c.allocMu.Unlock()
	return c.migrateTokens[id]
}

// ValidMigrateToken reports whether token is the migrate token of
// allocation allocID on this node (structs.CompareMigrateToken with this
// node's secret). The agent's snapshot route calls it on the node holding
// the allocation (agent.MigrateTokenChecker).
func (c *Client) ValidMigrateToken(allocID, token string) bool {
	return structs.CompareMigrateToken(allocID, c.secret(), token)
}

// waitStopped blocks until the servers say allocation id is terminal on
// its client, is gone, or migrateStopWait passed.
func (c *Client) waitStopped(id string) {
	deadline := time.Now().Add(migrateStopWait)
	var index uint64
	for time.Now().Before(deadline) {
		req := &structs.AllocsGetRequest{AllocIDs: []string{id}, QueryOptions: structs.QueryOptions{
			Region: c.cfg.Region, MinQueryIndex: index, MaxQueryTime: time.Until(deadline), AllowStale: true,
			AuthToken: c.secret()}}
		var got structs.AllocsGetResponse
		if err := c.blockingRPC(structs.AllocGetAllocsRPC, req, &got); err != nil {
			c.logger.Debug("waiting for the previous allocation to stop", "alloc_id", id, "error", err)
			return
		}
		if len(got.Allocs) == 0 || got.Allocs[0].ClientTerminalStatus() {
			return
		}
		index = got.Index
	}
}
