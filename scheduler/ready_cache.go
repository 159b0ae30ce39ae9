package scheduler

import (
	"strings"
	"sync"

	"github.com/nomadish/nomadish/structs"
)

// ReadyCacher is an optional State whose Nodes come from one store: it
// hands out the store's ReadyCache and the version of the node list it
// reads (the node table's index, or any number that grows with every node
// write). Process then derives a job's ready nodes (readyNodesInDCs over
// its pool and datacenters) once per version instead of once per eval.
type ReadyCacher interface {
	ReadyCache() (cache *ReadyCache, nodesVersion uint64)
}

// ReadyCache holds ready-node lists per node pool and datacenters, for
// the newest node-list version asked; older versions are computed
// uncached. Safe for concurrent use. The zero value is ready.
type ReadyCache struct {
	mu      sync.Mutex
	version uint64
	lists   map[string]readyList
}

type readyList struct {
	nodes []*structs.Node // read-only: callers clone before shuffling
	perDC map[string]int  // read-only
}

// get returns the ready nodes of nodes (the node list at version) in pool
// and dcs, sorted by ID, and the count per datacenter; both read-only.
func (c *ReadyCache) get(version uint64, nodes []*structs.Node, pool string, dcs []string) ([]*structs.Node, map[string]int) {
	key := pool + "\x00" + strings.Join(dcs, "\x00")
	c.mu.Lock()
	if version == c.version && c.lists != nil {
		if l, ok := c.lists[key]; ok {
			c.mu.Unlock()
			return l.nodes, l.perDC
		}
	}
	c.mu.Unlock()
	ready, perDC := readyNodesInDCs(nodesInPool(nodes, pool), dcs)
	sortByID(ready)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case version > c.version || c.lists == nil:
		c.version, c.lists = version, map[string]readyList{}
	case version < c.version:
		return ready, perDC
	}
	c.lists[key] = readyList{nodes: ready, perDC: perDC}
	return ready, perDC
}

// readyNodes is readyNodesInDCs over the job's pool, from the state's
// ReadyCache when it has one. The slice is the caller's; the map is not.
func readyNodes(state State, nodes []*structs.Node, pool string, dcs []string) ([]*structs.Node, map[string]int) {
	if rc, ok := state.(ReadyCacher); ok {
		if c, version := rc.ReadyCache(); c != nil {
			ready, perDC := c.get(version, nodes, pool, dcs)
			return append(make([]*structs.Node, 0, len(ready)), ready...), perDC
		}
	}
	ready, perDC := readyNodesInDCs(nodesInPool(nodes, pool), dcs)
	sortByID(ready)
	return ready, perDC
}
