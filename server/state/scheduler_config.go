package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// tableSchedulerConfig holds at most one row: the scheduler configuration.
const tableSchedulerConfig = "scheduler_config"

// recordSchedulerConfig is its record type in persisted snapshots.
const recordSchedulerConfig recordType = 15

// TableSchedulerConfig is the table name for Index, exported for endpoints.
const TableSchedulerConfig = tableSchedulerConfig

func schedulerConfigSchema() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableSchedulerConfig,
		Indexes: map[string]*memdb.IndexSchema{
			// A singleton: every row has the same (true) key.
			"id": {Name: "id", Unique: true, Indexer: &memdb.ConditionalIndex{
				Conditional: func(any) (bool, error) { return true, nil },
			}},
		},
	}
}

// SchedulerSetConfig writes the scheduler configuration at index. With cas,
// it writes only when the stored configuration's ModifyIndex equals
// cfg.ModifyIndex (0: nothing stored yet) and reports whether it wrote.
// CreateIndex and ModifyIndex of cfg are set by the store.
func (s *StateStore) SchedulerSetConfig(index uint64, cfg *structs.SchedulerConfiguration, cas bool) (bool, error) {
	txn := s.db.Txn(true)
	defer txn.Abort()
	raw, err := txn.First(tableSchedulerConfig, "id")
	if err != nil {
		return false, fmt.Errorf("reading scheduler configuration: %w", err)
	}
	var old *structs.SchedulerConfiguration
	if raw != nil {
		old = raw.(*structs.SchedulerConfiguration)
	}
	if cas {
		var have uint64
		if old != nil {
			have = old.ModifyIndex
		}
		if have != cfg.ModifyIndex {
			return false, nil
		}
	}
	c := cfg.Copy()
	c.CreateIndex = index
	if old != nil {
		c.CreateIndex = old.CreateIndex
	}
	c.ModifyIndex = index
	if err := txn.Insert(tableSchedulerConfig, c); err != nil {
		return false, fmt.Errorf("writing scheduler configuration: %w", err)
	}
	if err := setIndex(txn, tableSchedulerConfig, index); err != nil {
		return false, err
	}
	// A new algorithm or preemption setting may let blocked evals place.
	return true, s.commit(txn, index, &changes{capacity: true})
}

// SchedulerConfig returns the stored scheduler configuration, or the default
// one (structs.DefaultSchedulerConfiguration, indexes 0) when none was
// written. The returned value is shared: read-only.
func (r reader) SchedulerConfig(ws memdb.WatchSet) (*structs.SchedulerConfiguration, error) {
	txn := r.db.Txn(false)
	ch, raw, err := txn.FirstWatch(tableSchedulerConfig, "id")
	if err != nil {
		return nil, fmt.Errorf("reading scheduler configuration: %w", err)
	}
	ws.Add(ch)
	if raw == nil {
		return structs.DefaultSchedulerConfiguration(), nil
	}
	return raw.(*structs.SchedulerConfiguration), nil
}
