package state

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

func allocsSchema() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableAllocs,
		Indexes: map[string]*memdb.IndexSchema{
			"id": {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "ID"}},
			"job": {Name: "job", Indexer: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
				&memdb.StringFieldIndex{Field: "Namespace"},
				&memdb.StringFieldIndex{Field: "JobID"},
			}}},
			"eval": {Name: "eval", Indexer: &memdb.StringFieldIndex{Field: "EvalID"}},
			// node_terminal (Nomad's node index) splits a node's allocations
			// into live and terminal ones, so placement reads only the live;
			// its prefix is the node's whole list (allocsByNode). One index
			// by node, not two: each index holds a radix leaf, a key and a
			// watch channel per allocation, rewritten on every update (the
			// C1M memory and FSM wall).
			"node_terminal": {Name: "node_terminal", Indexer: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
				&memdb.StringFieldIndex{Field: "NodeID"},
				&memdb.ConditionalIndex{Conditional: allocTerminal},
			}}},
		},
	}
}

// UpsertAllocs writes allocations from the server side at index (placements
// or updates). Client-owned fields of an existing allocation are kept.
func (s *StateStore) UpsertAllocs(index uint64, allocs []*structs.Allocation) error {
	txn := s.writeTxn()
	defer txn.Abort()
	c := &changes{}
	if err := upsertAllocsTxn(txn, index, allocs, nil, c); err != nil {
		return err
	}
	return s.commit(txn, index, c)
}

func upsertAllocsTxn(txn *memdb.Txn, index uint64, allocs []*structs.Allocation, job *structs.Job, c *changes) error {
	for _, a := range allocs {
		raw, err := txn.First(tableAllocs, "id", a.ID)
		if err != nil {
			return fmt.Errorf("looking up alloc %q: %w", a.ID, err)
		}
		if a.Job == nil {
			a.Job = job
		}
		var old *structs.Allocation
		if raw != nil {
			old = raw.(*structs.Allocation)
			if a.Job != nil && old.Job != nil && a.Job.Priority < old.Job.Priority {
				c.capacityOnNode(txn, old.NodeID) // now preemptible by more jobs: blocked evals retry
			}
			a.CreateIndex = old.CreateIndex
			a.ClientStatus = old.ClientStatus
			a.ClientDescription = old.ClientDescription
			a.TaskStates = old.TaskStates
			if a.NetworkStatus == nil {
				a.NetworkStatus = old.NetworkStatus
			}
			if a.Job == nil {
				a.Job = old.Job
			}
		} else {
			a.CreateIndex = index
		}
		a.ModifyIndex = index
		a.AllocModifyIndex = index
		if err := putAllocTxn(txn, old, a); err != nil {
			return err
		}
		c.touchJob(a.Namespace, a.JobID)
	}
	return setIndex(txn, tableAllocs, index)
}

// UpsertPlanResults commits a plan at index: stopped and preempted
// allocations get the desired status, description and client status given;
// placed ones are upserted; the plan's evals are written. All in one
// transaction.
func (s *StateStore) UpsertPlanResults(index uint64, req *structs.ApplyPlanResultsRequest) error {
	txn := s.writeTxn()
	defer txn.Abort()
	c := &changes{event: structs.TypePlanResult}
	stops := append([]*structs.Allocation(nil), req.AllocsStopped...)
	for _, p := range req.AllocsPreempted {
		c := *p
		c.ClientStatus = "" // the client's own report stands: the plan's copy may be stale
		stops = append(stops, &c)
	}
	if err := stopAllocsTxn(txn, index, stops, req.UpdatedAt, c); err != nil {
		return err
	}
	joined, err := joinedDeploymentTxn(txn, req.AllocsPlaced)
	if err != nil {
		return err
	}
	if err := upsertAllocsTxn(txn, index, req.AllocsPlaced, req.Job, c); err != nil {
		return err
	}
	if err := planDeploymentsTxn(txn, index, req, joined); err != nil {
		return err
	}
	if err := upsertEvalsTxn(txn, index, req.Evals, c); err != nil {
		return err
	}
	return s.commit(txn, index, c)
}

func stopAllocsTxn(txn *memdb.Txn, index uint64, stops []*structs.Allocation, now int64, c *changes) error {
	for _, stop := range stops {
		raw, err := txn.First(tableAllocs, "id", stop.ID)
		if err != nil {
			return fmt.Errorf("looking up alloc %q: %w", stop.ID, err)
		}
		if raw == nil {
			continue
		}
		old := raw.(*structs.Allocation)
		cp := *old // shallow: only top-level fields change
		a := &cp
		a.DesiredStatus = stop.DesiredStatus
		a.DesiredDescription = stop.DesiredDescription
		if stop.PreemptedByAllocation != "" {
			a.PreemptedByAllocation = stop.PreemptedByAllocation
		}
		if stop.ClientStatus != "" {
			a.ClientStatus = stop.ClientStatus
		}
		a.ModifyIndex = index
		a.AllocModifyIndex = index
		if now != 0 {
			a.ModifyTime = now
		}
		if err := putAllocTxn(txn, old, a); err != nil {
			return fmt.Errorf("stopping: %w", err)
		}
		c.capacityOnNode(txn, a.NodeID)
		c.touchJob(a.Namespace, a.JobID)
	}
	if len(stops) == 0 {
		return nil
	}
	return setIndex(txn, tableAllocs, index)
}

// UpdateAllocsFromClient merges client reports (ClientStatus,
// ClientDescription, TaskStates) into existing allocations at index, and
// writes evals (nil ok) created with them. Unknown allocations are ignored;
// the client status of one stopped as lost is kept (keepsLost).
// AllocModifyIndex is left alone: the client already knows these changes.
func (s *StateStore) UpdateAllocsFromClient(index uint64, allocs []*structs.Allocation, evals []*structs.Evaluation) error {
	txn := s.writeTxn()
	defer txn.Abort()
	c := &changes{event: structs.TypeAllocationUpdated}
	for _, upd := range allocs {
		raw, err := txn.First(tableAllocs, "id", upd.ID)
		if err != nil {
			return fmt.Errorf("looking up alloc %q: %w", upd.ID, err)
		}
		if raw == nil {
			continue
		}
		old := raw.(*structs.Allocation)
		cp := *old // shallow: only top-level fields change (TaskStates is replaced whole)
		a := &cp
		if !keepsLost(old) {
			a.ClientStatus = upd.ClientStatus
			a.ClientDescription = upd.ClientDescription
		}
		if upd.TaskStates != nil {
			a.TaskStates = upd.TaskStates
		}
		if upd.NetworkStatus != nil { // the client's bridge/CNI network
			a.NetworkStatus = upd.NetworkStatus
		}
		if err := mergeClientHealth(txn, index, old, a, upd); err != nil {
			return err
		}
		a.ModifyIndex = index
		if upd.ModifyTime != 0 {
			a.ModifyTime = upd.ModifyTime
		}
		if err := putAllocTxn(txn, old, a); err != nil {
			return err
		}
		if a.ClientTerminalStatus() && !old.ClientTerminalStatus() {
			c.capacityOnNode(txn, a.NodeID)
		}
		// A client-terminal allocation's services go in the same write.
		if a.ClientTerminalStatus() {
			if err := deleteServicesOfTxn(txn, index, "alloc_id", a.ID); err != nil {
				return err
			}
		}
		c.touchJob(a.Namespace, a.JobID)
	}
	if err := setIndex(txn, tableAllocs, index); err != nil {
		return err
	}
	if err := upsertEvalsTxn(txn, index, evals, c); err != nil {
		return err
	}
	return s.commit(txn, index, c)
}

// keepsLost reports whether a client report may not change old's client
// status: the server stopped it as lost (its node went down). A client that
// comes back still reports it running until it has stopped it; the alloc
// stays lost (and terminal, so counts and capacity do not see it again).
func keepsLost(old *structs.Allocation) bool {
	return old.ClientStatus == structs.AllocClientStatusLost && old.DesiredStatus != structs.AllocDesiredStatusRun
}

// AllocByID returns the allocation or nil.
func (r reader) AllocByID(ws memdb.WatchSet, id string) (*structs.Allocation, error) {
	txn := r.db.Txn(false)
	ch, raw, err := txn.FirstWatch(tableAllocs, "id", id)
	if err != nil {
		return nil, fmt.Errorf("looking up alloc %q: %w", id, err)
	}
	ws.Add(ch)
	if raw == nil {
		return nil, nil
	}
	return raw.(*structs.Allocation), nil
}

// AllocsByJob returns a job's allocations, terminal ones included.
func (r reader) AllocsByJob(ws memdb.WatchSet, namespace, jobID string) ([]*structs.Allocation, error) {
	return allocsBy(r.db.Txn(false), ws, "job", namespace, jobID)
}

// AllocsByNode returns a node's allocations, terminal ones included.
func (r reader) AllocsByNode(ws memdb.WatchSet, nodeID string) ([]*structs.Allocation, error) {
	return allocsByNode(r.db.Txn(false), ws, nodeID)
}

// allocsByNode lists a node's allocations, terminal ones included, by ID
// (the order the node index had): the node_terminal prefix of the node ID
// and its terminator, so node "n1" does not list "n10"'s.
func allocsByNode(txn *memdb.Txn, ws memdb.WatchSet, nodeID string) ([]*structs.Allocation, error) {
	out, err := allocsBy(txn, ws, "node_terminal_prefix", nodeID+"\x00")
	slices.SortFunc(out, func(a, b *structs.Allocation) int { return strings.Compare(a.ID, b.ID) })
	return out, err
}

// EachAllocOnNode calls fn with each of the node's allocations, terminal
// ones included, in no set order, without building a list (a node's alloc
// watch answers with a map of them all, on every change).
func (r reader) EachAllocOnNode(nodeID string, fn func(*structs.Allocation)) error {
	it, err := r.db.Txn(false).Get(tableAllocs, "node_terminal_prefix", nodeID+"\x00")
	if err != nil {
		return fmt.Errorf("listing allocs of node %q: %w", nodeID, err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		fn(raw.(*structs.Allocation))
	}
	return nil
}

// AllocsByNodeTerminal returns a node's allocations whose TerminalStatus is
// terminal: the live ones (false) or the finished ones (true).
func (r reader) AllocsByNodeTerminal(ws memdb.WatchSet, nodeID string, terminal bool) ([]*structs.Allocation, error) {
	return allocsBy(r.db.Txn(false), ws, "node_terminal", nodeID, terminal)
}

// allocTerminal is node_terminal's condition. Allocations are copied on
// write (never changed in place once inserted), so the index stays true.
func allocTerminal(obj any) (bool, error) {
	a, ok := obj.(*structs.Allocation)
	if !ok {
		return false, fmt.Errorf("node_terminal index: %T is not an allocation", obj)
	}
	return a.TerminalStatus(), nil
}

// AllocsByEval returns the allocations an evaluation placed.
func (r reader) AllocsByEval(ws memdb.WatchSet, evalID string) ([]*structs.Allocation, error) {
	return allocsBy(r.db.Txn(false), ws, "eval", evalID)
}

// Allocs returns all allocations ordered by ID.
func (r reader) Allocs(ws memdb.WatchSet) ([]*structs.Allocation, error) {
	return allocsBy(r.db.Txn(false), ws, "id")
}

func allocsBy(txn *memdb.Txn, ws memdb.WatchSet, index string, args ...any) ([]*structs.Allocation, error) {
	it, err := txn.Get(tableAllocs, index, args...)
	if err != nil {
		return nil, fmt.Errorf("listing allocs by %s: %w", index, err)
	}
	ws.Add(it.WatchCh())
	var out []*structs.Allocation
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*structs.Allocation))
	}
	return out, nil
}
