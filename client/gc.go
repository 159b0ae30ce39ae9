package client

import (
	"context"
	"errors"

	"github.com/nomadish/nomadish/client/allocgc"
	"github.com/nomadish/nomadish/client/allocrunner"
	"github.com/nomadish/nomadish/structs"
)

// Client garbage collection (client/allocgc): the collector destroys
// terminal allocations over the gc limits, on node gc and alloc gc, and
// those the servers no longer have (removeAlloc), all through
// destroyRunner and at most gc_parallel_destroys at once. A collected
// allocation the servers still list stays in c.collected so that it is
// never started again; it leaves it once the servers drop it.

// startGC builds the collector and starts its goroutine (in c.wg, ended by
// Shutdown through c.ctx).
func (c *Client) startGC() {
	disk := c.cfg.GCDiskStats
	if disk == nil {
		disk = allocgc.StatFS{}
	}
	c.gc = allocgc.New(c.cfg.GC, gcRunners{c}, disk, c.allocRoot(), nil, c.logger)
	c.wg.Go(func() { c.gc.Run(c.ctx) })
}

// gcRunners is the client as the collector sees it.
type gcRunners struct{ c *Client }

// Allocs lists the runners: terminal once every task is dead, since its
// last task finished (FailTime).
func (g gcRunners) Allocs() []allocgc.Alloc {
	g.c.allocMu.Lock()
	runners := make([]*allocrunner.AllocRunner, 0, len(g.c.allocs))
	for _, ar := range g.c.allocs {
		runners = append(runners, ar)
	}
	g.c.allocMu.Unlock()
	out := make([]allocgc.Alloc, 0, len(runners))
	for _, ar := range runners {
		alloc := ar.Alloc()
		a := allocgc.Alloc{ID: alloc.ID, Terminal: ar.IsDead() || allDead(alloc.TaskStates)}
		if a.Terminal {
			a.TerminalAt = alloc.FailTime()
		}
		out = append(out, a)
	}
	return out
}

// allDead reports whether every task is dead (the runner may still be
// finishing: releasing the network, sending the last update), so that an
// allocation the servers already see complete can be collected at once.
func allDead(states map[string]*structs.TaskState) bool {
	for _, s := range states {
		if s == nil || s.State != structs.TaskStateDead {
			return false
		}
	}
	return len(states) > 0
}

// Destroy takes the runner from the client and destroys it.
func (g gcRunners) Destroy(id string) error { return g.c.destroyRunner(id) }

// destroyRunner takes allocation id's runner from the client and destroys
// it (allocrunner.Destroy: tasks killed, network released, alloc dir and
// stored state removed). While the servers still list the allocation it
// is remembered as collected (applyAlloc starts it no more).
func (c *Client) destroyRunner(id string) error {
	c.allocMu.Lock()
	ar := c.allocs[id]
	if ar == nil || c.ctx.Err() != nil {
		c.allocMu.Unlock()
		return allocgc.ErrUnknownAlloc
	}
	delete(c.allocs, id)
	if _, listed := c.allocIdx[id]; listed {
		c.collected[id] = struct{}{}
	}
	c.allocMu.Unlock()
	return ar.Destroy()
}

// GCAlloc destroys the terminal allocation allocID now (alloc gc). Errors
// are *structs.CodedError: 404 when this client does not hold it, 400
// while a task of it is alive.
func (c *Client) GCAlloc(ctx context.Context, allocID string) error {
	err := c.gc.Collect(ctx, allocID)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, allocgc.ErrUnknownAlloc):
		return unknownAlloc(allocID)
	case errors.Is(err, allocgc.ErrNotTerminal):
		return structs.NewCodedError(structs.ErrCodeBadRequest, "allocation %s is still running: only a terminal allocation is collected", allocID)
	}
	return err
}

// GCNode destroys every terminal allocation of the client now (node gc)
// and returns how many went.
func (c *Client) GCNode(ctx context.Context) (int, error) {
	return c.gc.CollectAll(ctx)
}

// wasCollected reports whether id was collected here while the servers
// still list it. Callers hold allocMu.
func (c *Client) wasCollected(id string) bool {
	_, ok := c.collected[id]
	return ok
}
