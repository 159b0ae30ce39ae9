package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// tableNodeUsage holds one row per node that holds or held an allocation
// (a deleted node's goes with it once none is live: forgetNodeRowTxn):
// the sum of its live allocations' comparable resources (cpu, memory,
// disk) and the highest AllocModifyIndex of any of its allocations, kept
// in the same transaction as every write of an allocation (putAllocTxn,
// deleteAllocTxn). The scheduler and the plan applier read a node's usage
// in O(1) instead of listing and adding its allocations (at a million
// allocations on 10,000 nodes that listing was half the leader's CPU), and
// a node's alloc watch (Node.GetClientAllocs) blocks on the row, so a
// client's own status report, which moves neither, does not wake it. It is
// derived: snapshots do not carry it, Restore rebuilds it (derivedTables).
const tableNodeUsage = "node_usage"

// NodeUsage is one node's row: Used sums the comparable resources of Live
// allocations that are not terminal (structs.Usage.Add's rule); AllocIndex
// is the highest AllocModifyIndex of all its allocations, terminal or not.
type NodeUsage struct {
	NodeID     string
	Used       structs.ComparableResources
	Live       int
	AllocIndex uint64
}

func nodeUsageSchema() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableNodeUsage,
		Indexes: map[string]*memdb.IndexSchema{
			"id": {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "NodeID"}},
		},
	}
}

// putAllocTxn inserts a, the new version of old (nil: a new allocation),
// and moves the node rows by the difference.
func putAllocTxn(txn *memdb.Txn, old, a *structs.Allocation) error {
	if err := txn.Insert(tableAllocs, a); err != nil {
		return fmt.Errorf("writing alloc %q: %w", a.ID, err)
	}
	return moveNodeUsage(txn, old, a)
}

// moveNodeUsage takes old out of its node's usage and puts a in (either
// may be nil; a terminal one counts for nothing), and raises a's node's
// AllocIndex to a's AllocModifyIndex. A client report keeps the same
// AllocatedResources, node and AllocModifyIndex: nothing is written then.
func moveNodeUsage(txn *memdb.Txn, old, a *structs.Allocation) error {
	oldLive := old != nil && !old.TerminalStatus()
	newLive := a != nil && !a.TerminalStatus()
	sameNode := old != nil && a != nil && old.NodeID == a.NodeID
	indexMoved := a != nil && (old == nil || !sameNode || a.AllocModifyIndex != old.AllocModifyIndex)
	if oldLive && newLive && sameNode && old.AllocatedResources == a.AllocatedResources {
		oldLive, newLive = false, false // the same resources on the same node
	}
	if oldLive && !(newLive && sameNode) {
		if err := updateNodeRow(txn, old.NodeID, func(row *NodeUsage) {
			row.Used.Subtract(old.AllocatedResources.Comparable())
			row.Live--
		}); err != nil {
			return err
		}
		oldLive = false
	}
	if !oldLive && !newLive && !indexMoved {
		return nil
	}
	return updateNodeRow(txn, a.NodeID, func(row *NodeUsage) {
		if oldLive { // same node, both live: the new resources replace the old
			row.Used.Subtract(old.AllocatedResources.Comparable())
			row.Live--
		}
		if newLive {
			row.Used.Add(a.AllocatedResources.Comparable())
			row.Live++
		}
		row.AllocIndex = max(row.AllocIndex, a.AllocModifyIndex)
	})
}

// updateNodeRow applies change to a copy of the node's row (a new one when
// absent) and writes it.
func updateNodeRow(txn *memdb.Txn, nodeID string, change func(*NodeUsage)) error {
	raw, err := txn.First(tableNodeUsage, "id", nodeID)
	if err != nil {
		return fmt.Errorf("reading node usage %q: %w", nodeID, err)
	}
	row := &NodeUsage{NodeID: nodeID}
	if raw != nil {
		cp := *raw.(*NodeUsage) // rows are copied on write, as every object here
		row = &cp
	}
	change(row)
	if err := txn.Insert(tableNodeUsage, row); err != nil {
		return fmt.Errorf("writing node usage %q: %w", nodeID, err)
	}
	return nil
}

// forgetNodeRowTxn deletes a deleted node's row when no live allocation
// is left on it, so rows do not outlive their nodes. One with live
// allocations stays: their later stops subtract from it. A node that
// registers again without a row answers its alloc watch in full
// (NodeAllocsIndex 0), as one that never held an allocation.
func forgetNodeRowTxn(txn *memdb.Txn, nodeID string) error {
	raw, err := txn.First(tableNodeUsage, "id", nodeID)
	if err != nil {
		return fmt.Errorf("reading node usage %q: %w", nodeID, err)
	}
	if raw == nil || raw.(*NodeUsage).Live > 0 {
		return nil
	}
	if err := txn.Delete(tableNodeUsage, raw); err != nil {
		return fmt.Errorf("deleting node usage %q: %w", nodeID, err)
	}
	return nil
}

// NodeLiveUsage returns the sum of the node's live allocations' comparable
// resources and their number (zero when it holds none).
func (r reader) NodeLiveUsage(nodeID string) (structs.ComparableResources, int, error) {
	raw, err := r.db.Txn(false).First(tableNodeUsage, "id", nodeID)
	if err != nil {
		return structs.ComparableResources{}, 0, fmt.Errorf("reading node usage %q: %w", nodeID, err)
	}
	if raw == nil {
		return structs.ComparableResources{}, 0, nil
	}
	u := raw.(*NodeUsage)
	return u.Used, u.Live, nil
}

// NodeAllocsIndex is the index a node's alloc watch answers at least: the
// highest AllocModifyIndex of its allocations or the latest deletion of
// one (NodeAllocsRemovedIndex); 0 when the node has no row (it never held
// an allocation, or it was deleted with none live): unknown, the watch then
// answers in full. ws (nil ok) fires when either moves.
func (r reader) NodeAllocsIndex(ws memdb.WatchSet, nodeID string) (uint64, error) {
	ch, raw, err := r.db.Txn(false).FirstWatch(tableNodeUsage, "id", nodeID)
	if err != nil {
		return 0, fmt.Errorf("reading node usage %q: %w", nodeID, err)
	}
	ws.Add(ch)
	removed, err := r.WatchTables(ws, nodeAllocsRemovedKey(nodeID))
	if err != nil {
		return 0, err
	}
	if raw == nil {
		return removed, nil
	}
	return max(raw.(*NodeUsage).AllocIndex, removed), nil
}
