package client

import (
	"errors"

	"github.com/nomadish/nomadish/client/allocdir"
	"github.com/nomadish/nomadish/client/allocgc"
	"github.com/nomadish/nomadish/client/allocrunner"
	"github.com/nomadish/nomadish/client/taskrunner"
	"github.com/nomadish/nomadish/structs"
)

// newRunner builds an alloc runner wired to the client's drivers, state
// and update batcher.
// prev is the runner of the allocation a replaces, when it is here.
func (c *Client) newRunner(a *structs.Allocation, prev *allocrunner.AllocRunner) (*allocrunner.AllocRunner, error) {
	return allocrunner.New(allocrunner.Config{
		Alloc: a, AllocRoot: c.allocRoot(), State: c.db,
		Drivers:    func(name string) (taskrunner.Driver, error) { return c.plugins.Driver(name) },
		Region:     c.cfg.Region,
		Datacenter: c.cfg.Datacenter,
		Node:       c.Node,
		Logger:     c.cfg.Logger,
		OnUpdate:   c.batch.add,
		// the client's artifact block (client/getter)
		Artifacts: c.cfg.Artifacts,
		Previous:  prev,
		// migrate.go: data of a previous allocation on another node
		FetchPrevious: func(prevID string, dir *allocdir.AllocDir, tasks []string, maxBytes int64) error {
			return c.fetchPrevious(a.ID, prevID, dir, tasks, maxBytes)
		},
		// template_vars.go: the templates' nomadVar reads
		Vars: c.varsFor,
		// group_network.go: bridge, none and cni/<name> namespaces
		Network: c.net, NetworkManagerFor: c.networkManagerFor,
		// service_registrar.go: services registered, their checks run
		Services: c.newServices,
	})
}

// applyAlloc starts a runner for a new allocation or updates an existing one.
func (c *Client) applyAlloc(a *structs.Allocation) {
	c.allocMu.Lock()
	defer c.allocMu.Unlock()
	if c.ctx.Err() != nil {
		return // shutting down
	}
	c.allocIdx[a.ID] = a.AllocModifyIndex
	if c.wasCollected(a.ID) {
		return // garbage collected here (gc.go): never started again
	}
	if ar, ok := c.allocs[a.ID]; ok {
		ar.Update(a)
		return
	}
	if a.TerminalStatus() && !c.ranHere(a.ID) {
		// Stopped before we ever ran it: nothing to do. (One that ran here
		// but whose state was lost gets a runner: its tasks, re-discovered
		// through their drivers, are then stopped.)
		return
	}
	if a.NodeID == "" {
		a.NodeID = c.NodeID()
	}
	ar, err := c.newRunner(a, c.allocs[a.PreviousAllocation])
	if err != nil {
		c.logger.Error("creating alloc runner", "alloc_id", a.ID, "error", err)
		c.batch.add(&structs.Allocation{ID: a.ID, NodeID: a.NodeID, ClientStatus: structs.AllocClientStatusFailed,
			ClientDescription: err.Error()})
		return
	}
	c.allocs[a.ID] = ar
	ar.Run()
}

// removeAlloc destroys the runner of an allocation the server no longer
// has (collected by the servers, or gone): its tasks are killed, its
// network released and its dir and state removed, through the garbage
// collector's bound on parallel destroys (gc.go).
func (c *Client) removeAlloc(id string) {
	c.allocMu.Lock()
	if c.ctx.Err() != nil {
		c.allocMu.Unlock()
		return // shutting down
	}
	_, held := c.allocs[id]
	delete(c.allocIdx, id)
	delete(c.collected, id)
	c.allocMu.Unlock()
	if !held {
		return
	}
	c.wg.Go(func() {
		err := c.gc.Destroy(c.ctx, id, "allocation no longer on the servers")
		if err != nil && !errors.Is(err, allocgc.ErrUnknownAlloc) && c.ctx.Err() == nil {
			c.logger.Warn("destroying alloc", "alloc_id", id, "error", err)
		}
	})
}

// restoreAllocs re-creates the runners of allocations stored before a
// restart; their task runners re-attach to running tasks.
func (c *Client) restoreAllocs() {
	allocs, err := c.db.Allocs()
	if err != nil {
		c.logger.Error("reading stored allocations", "error", err)
		return
	}
	for _, a := range allocs {
		ar, err := c.newRunner(a, nil) // its data moved when it first ran
		if err != nil {
			c.logger.Error("restoring alloc", "alloc_id", a.ID, "error", err)
			continue
		}
		c.allocMu.Lock()
		c.allocs[a.ID] = ar
		c.allocIdx[a.ID] = a.AllocModifyIndex
		c.allocMu.Unlock()
		ar.Run()
	}
	if len(allocs) > 0 {
		c.logger.Info("restored allocations", "count", len(allocs))
	}
	c.sweepNetworks() // group_network.go
}

// runner returns the alloc runner of id, or nil.
func (c *Client) runner(id string) *allocrunner.AllocRunner {
	c.allocMu.Lock()
	defer c.allocMu.Unlock()
	return c.allocs[id]
}
