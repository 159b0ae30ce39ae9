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
// to the node holding it), once the previous allocation has stopped.

const (
	// migrateStopWait bounds the wait for the previous allocation to stop
	// before its data is fetched anyway.
	migrateStopWait = time.Minute
	// migrateFetchTimeout bounds the whole download.
	migrateFetchTimeout = 10 * time.Minute
)

// fetchPrevious restores allocation prevID's migrating data into dir (the
// allocrunner's Config.FetchPrevious). maxBytes caps the file contents (the
// group's ephemeral disk size). Called from the alloc runner's goroutine.
func (c *Client) fetchPrevious(prevID string, dir *allocdir.AllocDir, tasks []string, maxBytes int64) error {
	if c.cfg.HTTPAddr == "" {
		return fmt.Errorf("no HTTP address to fetch allocation %s's data through", prevID)
	}
	c.waitStopped(prevID)
	ctx, cancel := context.WithTimeout(c.ctx, migrateFetchTimeout)
	defer cancel()
	url := "http://" + c.cfg.HTTPAddr + "/v1/client/allocation/" + prevID + "/snapshot"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
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
