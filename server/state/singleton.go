package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"
)

// A singleton table holds at most one row: a cluster-wide configuration
// (the scheduler's, autopilot's), written with an optional check-and-set on
// its ModifyIndex and read as a default when never written.

func singletonSchema(table string) *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: table,
		Indexes: map[string]*memdb.IndexSchema{
			// Every row has the same (true) key.
			"id": {Name: "id", Unique: true, Indexer: &memdb.ConditionalIndex{
				Conditional: func(any) (bool, error) { return true, nil },
			}},
		},
	}
}

// singletonIndexes reads and sets a configuration's CreateIndex and
// ModifyIndex.
type singletonIndexes[T any] struct {
	get  func(*T) (create, modify uint64)
	set  func(c *T, create, modify uint64)
	copy func(*T) *T
}

// setSingletonTxn writes cfg's copy as table's row at index. With cas it
// writes only when the stored row's ModifyIndex equals cfg's (0: nothing
// stored yet) and reports whether it wrote. CreateIndex is kept from the
// stored row, ModifyIndex is index. what names the configuration in errors.
func setSingletonTxn[T any](txn *memdb.Txn, table, what string, index uint64, cfg *T, cas bool, ix singletonIndexes[T]) (bool, error) {
	raw, err := txn.First(table, "id")
	if err != nil {
		return false, fmt.Errorf("reading %s: %w", what, err)
	}
	var old *T
	if raw != nil {
		old = raw.(*T)
	}
	if cas {
		var have uint64
		if old != nil {
			_, have = ix.get(old)
		}
		if _, want := ix.get(cfg); have != want {
			return false, nil
		}
	}
	c := ix.copy(cfg)
	create := index
	if old != nil {
		create, _ = ix.get(old)
	}
	ix.set(c, create, index)
	if err := txn.Insert(table, c); err != nil {
		return false, fmt.Errorf("writing %s: %w", what, err)
	}
	return true, setIndex(txn, table, index)
}

// readSingleton returns table's row, or def() when none was written,
// adding the row's watch to ws. The returned value is shared: read-only.
func readSingleton[T any](r reader, ws memdb.WatchSet, table, what string, def func() *T) (*T, error) {
	ch, raw, err := r.db.Txn(false).FirstWatch(table, "id")
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	ws.Add(ch)
	if raw == nil {
		return def(), nil
	}
	return raw.(*T), nil
}
