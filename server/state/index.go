package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"
)

// Table names.
const (
	tableJobs   = "jobs"
	tableNodes  = "nodes"
	tableAllocs = "allocs"
	tableEvals  = "evals"
	tableIndex  = "index"
)

// IndexEntry is a row of the index table: the raft index of the latest
// write to a table.
type IndexEntry struct {
	Key   string
	Value uint64
}

func indexSchema() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableIndex,
		Indexes: map[string]*memdb.IndexSchema{
			"id": {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "Key"}},
		},
	}
}

// setIndex records that table was written at index.
func setIndex(txn *memdb.Txn, table string, index uint64) error {
	if err := txn.Insert(tableIndex, &IndexEntry{Key: table, Value: index}); err != nil {
		return fmt.Errorf("updating %s index: %w", table, err)
	}
	return nil
}

// Index returns the raft index of the latest write to table (0 if none).
func (r reader) Index(table string) (uint64, error) {
	txn := r.db.Txn(false)
	raw, err := txn.First(tableIndex, "id", table)
	if err != nil {
		return 0, fmt.Errorf("reading %s index: %w", table, err)
	}
	if raw == nil {
		return 0, nil
	}
	return raw.(*IndexEntry).Value, nil
}

// WatchTables returns the highest index among tables and adds to ws (nil
// ok) one channel per table: its row of the index table, which fires when a
// write to that table commits. A blocking list watches these instead of its
// objects, so a waiter holds len(tables) channels however many objects the
// list has (memdb's WatchSet starts a goroutine per 32 channels beyond 32).
// A table never written yet reads as 0 and its channel fires on its first
// write.
func (r reader) WatchTables(ws memdb.WatchSet, tables ...string) (uint64, error) {
	txn := r.db.Txn(false)
	var max uint64
	for _, t := range tables {
		ch, raw, err := txn.FirstWatch(tableIndex, "id", t)
		if err != nil {
			return 0, fmt.Errorf("reading %s index: %w", t, err)
		}
		ws.Add(ch)
		if raw != nil && raw.(*IndexEntry).Value > max {
			max = raw.(*IndexEntry).Value
		}
	}
	return max, nil
}

// LatestIndex returns the highest index of any table. ws (nil ok) fires on
// any write.
func (r reader) LatestIndex(ws memdb.WatchSet) (uint64, error) {
	txn := r.db.Txn(false)
	it, err := txn.Get(tableIndex, "id")
	if err != nil {
		return 0, fmt.Errorf("reading indexes: %w", err)
	}
	ws.Add(it.WatchCh())
	var max uint64
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if v := raw.(*IndexEntry).Value; v > max {
			max = v
		}
	}
	return max, nil
}

// Indexes returns every table's index.
func (r reader) Indexes() ([]*IndexEntry, error) {
	txn := r.db.Txn(false)
	it, err := txn.Get(tableIndex, "id")
	if err != nil {
		return nil, fmt.Errorf("reading indexes: %w", err)
	}
	var out []*IndexEntry
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*IndexEntry))
	}
	return out, nil
}

// Table names for Index, exported for endpoints.
const (
	TableJobs   = tableJobs
	TableNodes  = tableNodes
	TableAllocs = tableAllocs
	TableEvals  = tableEvals
)
