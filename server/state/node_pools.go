package state

import (
	"fmt"
	"sort"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// tableNodePools holds the node pools written through raft (and those
// nodes registered in); the built-in "default" and "all" are never stored,
// reads synthesize them.
const tableNodePools = "node_pools"

// recordNodePool is its record type in persisted snapshots.
const recordNodePool recordType = 71

// TableNodePools is the table name for Index and WatchTables.
const TableNodePools = tableNodePools

func nodePoolsSchema() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableNodePools,
		Indexes: map[string]*memdb.IndexSchema{
			"id": {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "Name"}},
		},
	}
}

// UpsertNodePools creates or updates pools at index, keeping each existing
// one's CreateIndex. Built-in pools are refused (400, nothing written).
func (s *StateStore) UpsertNodePools(index uint64, pools []*structs.NodePool) error {
	txn := s.writeTxn()
	defer txn.Abort()
	for _, in := range pools {
		if in == nil {
			continue // a malformed entry: nothing to write
		}
		if structs.IsBuiltinNodePool(in.Name) {
			return structs.NewCodedError(structs.ErrCodeBadRequest, "modifying node pool %q is not allowed", in.Name)
		}
		if err := upsertNodePoolTxn(txn, index, in.Copy()); err != nil {
			return err
		}
	}
	if err := setIndex(txn, tableNodePools, index); err != nil {
		return err
	}
	// A pool's scheduler configuration may let blocked evals place.
	return s.commit(txn, index, &changes{capacity: true})
}

func upsertNodePoolTxn(txn *memdb.Txn, index uint64, p *structs.NodePool) error {
	p.CreateIndex, p.ModifyIndex = index, index
	old, err := txn.First(tableNodePools, "id", p.Name)
	if err != nil {
		return fmt.Errorf("reading node pool %q: %w", p.Name, err)
	}
	if old != nil {
		p.CreateIndex = old.(*structs.NodePool).CreateIndex
	}
	if err := txn.Insert(tableNodePools, p); err != nil {
		return fmt.Errorf("writing node pool %q: %w", p.Name, err)
	}
	return nil
}

// ensureNodePoolTxn creates the pool a registering node names when it does
// not exist yet (as Nomad does).
func ensureNodePoolTxn(txn *memdb.Txn, index uint64, name string) error {
	if name == "" || structs.IsBuiltinNodePool(name) {
		return nil
	}
	old, err := txn.First(tableNodePools, "id", name)
	if err != nil {
		return fmt.Errorf("reading node pool %q: %w", name, err)
	}
	if old != nil {
		return nil
	}
	if err := upsertNodePoolTxn(txn, index, &structs.NodePool{Name: name}); err != nil {
		return err
	}
	return setIndex(txn, tableNodePools, index)
}

// DeleteNodePools deletes pools at index. Built-in pools, unknown pools
// (404) and pools that still have nodes or non-dead jobs are refused (400),
// and nothing is deleted.
func (s *StateStore) DeleteNodePools(index uint64, names []string) error {
	txn := s.writeTxn()
	defer txn.Abort()
	for _, name := range names {
		if structs.IsBuiltinNodePool(name) {
			return structs.NewCodedError(structs.ErrCodeBadRequest, "deleting node pool %q is not allowed", name)
		}
		nodes, jobs := nodePoolUsersTxn(txn, name)
		if len(nodes) > 0 || len(jobs) > 0 {
			return structs.NewCodedError(structs.ErrCodeBadRequest,
				"node pool %q is in use: %d node(s) %v, %d non-terminal job(s) %v", name, len(nodes), nodes, len(jobs), jobs)
		}
		n, err := txn.DeleteAll(tableNodePools, "id", name)
		if err != nil {
			return fmt.Errorf("deleting node pool %q: %w", name, err)
		}
		if n == 0 {
			return structs.NewCodedError(structs.ErrCodeNotFound, "node pool %q not found", name)
		}
	}
	if err := setIndex(txn, tableNodePools, index); err != nil {
		return err
	}
	return s.commit(txn, index, &changes{})
}

// nodePoolUsersTxn returns the IDs of the nodes in pool and of its jobs
// that are not dead.
func nodePoolUsersTxn(txn *memdb.Txn, pool string) (nodes, jobs []string) {
	if it, err := txn.Get(tableNodes, "id"); err == nil {
		for raw := it.Next(); raw != nil; raw = it.Next() {
			if n := raw.(*structs.Node); structs.NodePoolOf(n) == pool {
				nodes = append(nodes, n.ID)
			}
		}
	}
	if it, err := txn.Get(tableJobs, "id"); err == nil {
		for raw := it.Next(); raw != nil; raw = it.Next() {
			if j := raw.(*structs.Job); j.NodePool == pool && j.Status != structs.JobStatusDead {
				jobs = append(jobs, j.Namespace+"/"+j.ID)
			}
		}
	}
	return nodes, jobs
}

// NodePoolByName returns a pool, nil when absent (the built-in pools always
// exist). The returned value is shared: read-only.
func (r reader) NodePoolByName(ws memdb.WatchSet, name string) (*structs.NodePool, error) {
	if p := structs.BuiltinNodePool(name); p != nil {
		return p, nil
	}
	txn := r.db.Txn(false)
	ch, raw, err := txn.FirstWatch(tableNodePools, "id", name)
	if err != nil {
		return nil, fmt.Errorf("reading node pool %q: %w", name, err)
	}
	ws.Add(ch)
	if raw == nil {
		return nil, nil
	}
	return raw.(*structs.NodePool), nil
}

// NodePools returns every pool, the built-in ones included, sorted by name.
// The values are shared: read-only.
func (r reader) NodePools() ([]*structs.NodePool, error) {
	txn := r.db.Txn(false)
	it, err := txn.Get(tableNodePools, "id")
	if err != nil {
		return nil, fmt.Errorf("listing node pools: %w", err)
	}
	out := []*structs.NodePool{structs.BuiltinNodePool(structs.NodePoolAll), structs.BuiltinNodePool(structs.NodePoolDefault)}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*structs.NodePool))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
