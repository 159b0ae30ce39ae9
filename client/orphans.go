package client

import (
	"os"
	"path/filepath"
	"time"

	"github.com/nomadish/nomadish/client/allocdir"
	"github.com/nomadish/nomadish/drivers/base"
)

// orphanKillTimeout is how long an orphan task gets between its signal and
// the kill.
const orphanKillTimeout = 5 * time.Second

// ranHere reports whether the allocation has a directory on this client:
// it ran here, though the client may have lost its record of it.
func (c *Client) ranHere(allocID string) bool {
	if !filepath.IsLocal(allocID) {
		return false
	}
	fi, err := os.Stat(filepath.Join(c.allocRoot(), allocID))
	return err == nil && fi.IsDir()
}

// sweepOrphans runs once, after the first successful sync of the node's
// allocations: an alloc dir whose allocation the servers no longer have
// and no runner holds was left by a client that lost its state. Its tasks
// may still run; each driver that can discover tasks is asked for them by
// alloc and task name, and what it finds is stopped and destroyed before
// the dir is removed. A task is therefore never left running for an
// allocation nobody wants.
func (c *Client) sweepOrphans(known map[string]uint64) {
	entries, err := os.ReadDir(c.allocRoot())
	if err != nil {
		c.logger.Warn("listing alloc dirs for orphans", "error", err)
		return
	}
	for _, e := range entries {
		id := e.Name()
		if _, ok := known[id]; ok || !e.IsDir() || c.runner(id) != nil || c.ctx.Err() != nil {
			continue
		}
		c.logger.Warn("alloc dir of an allocation the servers no longer have: stopping its tasks and removing it",
			"alloc_id", id)
		c.stopOrphanTasks(allocdir.New(c.allocRoot(), id))
		if err := os.RemoveAll(filepath.Join(c.allocRoot(), id)); err != nil {
			c.logger.Warn("removing orphan alloc dir", "alloc_id", id, "error", err)
		}
	}
}

// stopOrphanTasks stops every task found by the drivers in the alloc dir
// (one sub-dir per task, beside the shared "alloc" dir).
func (c *Client) stopOrphanTasks(dir *allocdir.AllocDir) {
	entries, err := os.ReadDir(dir.Dir)
	if err != nil {
		return
	}
	id := filepath.Base(dir.Dir)
	for _, e := range entries {
		if !e.IsDir() || e.Name() == allocdir.SharedAllocName {
			continue
		}
		cfg := &base.TaskConfig{ID: id + "/" + e.Name() + "/orphan", Name: e.Name(), AllocID: id,
			AllocDir: dir.SharedDir, TaskDir: dir.TaskDir(e.Name()).Dir}
		for name := range c.plugins.Infos() {
			drv, err := c.plugins.Driver(name)
			if err != nil {
				continue
			}
			d, ok := drv.(base.TaskDiscoverer)
			if !ok {
				continue
			}
			h, err := d.DiscoverTask(cfg)
			if err != nil || h == nil || h.Config == nil {
				continue
			}
			c.logger.Warn("stopping an orphan task", "alloc_id", id, "task", e.Name(), "driver", name, "task_id", h.Config.ID)
			if err := drv.StopTask(h.Config.ID, orphanKillTimeout, ""); err != nil {
				c.logger.Warn("stopping orphan task", "task_id", h.Config.ID, "error", err)
			}
			if err := drv.DestroyTask(h.Config.ID, true); err != nil {
				c.logger.Warn("destroying orphan task", "task_id", h.Config.ID, "error", err)
			}
		}
	}
}
