package state

import (
	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// tableSchedulerConfig holds at most one row: the scheduler configuration.
const tableSchedulerConfig = "scheduler_config"

// recordSchedulerConfig is its record type in persisted snapshots.
const recordSchedulerConfig recordType = 15

// TableSchedulerConfig is the table name for Index, exported for endpoints.
const TableSchedulerConfig = tableSchedulerConfig

func schedulerConfigSchema() *memdb.TableSchema { return singletonSchema(tableSchedulerConfig) }

// schedulerConfigIndexes reads and sets its CreateIndex and ModifyIndex.
var schedulerConfigIndexes = singletonIndexes[structs.SchedulerConfiguration]{
	get: func(c *structs.SchedulerConfiguration) (uint64, uint64) { return c.CreateIndex, c.ModifyIndex },
	set: func(c *structs.SchedulerConfiguration, create, modify uint64) {
		c.CreateIndex, c.ModifyIndex = create, modify
	},
	copy: (*structs.SchedulerConfiguration).Copy,
}

// SchedulerSetConfig writes the scheduler configuration at index. With cas,
// it writes only when the stored configuration's ModifyIndex equals
// cfg.ModifyIndex (0: nothing stored yet) and reports whether it wrote.
// CreateIndex and ModifyIndex of cfg are set by the store.
func (s *StateStore) SchedulerSetConfig(index uint64, cfg *structs.SchedulerConfiguration, cas bool) (bool, error) {
	txn := s.db.Txn(true)
	defer txn.Abort()
	wrote, err := setSingletonTxn(txn, tableSchedulerConfig, "scheduler configuration", index, cfg, cas, schedulerConfigIndexes)
	if err != nil || !wrote {
		return false, err
	}
	// A new algorithm or preemption setting may let blocked evals place.
	return true, s.commit(txn, index, &changes{capacity: true})
}

// SchedulerConfig returns the stored scheduler configuration, or the default
// one (structs.DefaultSchedulerConfiguration, indexes 0) when none was
// written. The returned value is shared: read-only.
func (r reader) SchedulerConfig(ws memdb.WatchSet) (*structs.SchedulerConfiguration, error) {
	return readSingleton(r, ws, tableSchedulerConfig, "scheduler configuration", structs.DefaultSchedulerConfiguration)
}
