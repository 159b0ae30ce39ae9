package state

import (
	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// tableAutopilotConfig holds at most one row: the autopilot configuration.
const tableAutopilotConfig = "autopilot_config"

// recordAutopilotConfig is its record type in persisted snapshots.
const recordAutopilotConfig recordType = 120

// TableAutopilotConfig is the table name for Index, exported for endpoints.
const TableAutopilotConfig = tableAutopilotConfig

func autopilotConfigSchema() *memdb.TableSchema { return singletonSchema(tableAutopilotConfig) }

// autopilotConfigIndexes reads and sets its CreateIndex and ModifyIndex.
var autopilotConfigIndexes = singletonIndexes[structs.AutopilotConfig]{
	get: func(c *structs.AutopilotConfig) (uint64, uint64) { return c.CreateIndex, c.ModifyIndex },
	set: func(c *structs.AutopilotConfig, create, modify uint64) {
		c.CreateIndex, c.ModifyIndex = create, modify
	},
	copy: (*structs.AutopilotConfig).Copy,
}

// AutopilotSetConfig writes the autopilot configuration at index. With cas,
// it writes only when the stored configuration's ModifyIndex equals
// cfg.ModifyIndex (0: nothing stored yet) and reports whether it wrote.
// The store sets CreateIndex and ModifyIndex.
func (s *StateStore) AutopilotSetConfig(index uint64, cfg *structs.AutopilotConfig, cas bool) (bool, error) {
	txn := s.db.Txn(true)
	defer txn.Abort()
	wrote, err := setSingletonTxn(txn, tableAutopilotConfig, "autopilot configuration", index, cfg, cas, autopilotConfigIndexes)
	if err != nil || !wrote {
		return false, err
	}
	return true, s.commit(txn, index, &changes{})
}

// AutopilotConfig returns the stored autopilot configuration, or the
// default one (structs.DefaultAutopilotConfig, indexes 0) when none was
// written. The returned value is shared: read-only.
func (r reader) AutopilotConfig(ws memdb.WatchSet) (*structs.AutopilotConfig, error) {
	return readSingleton(r, ws, tableAutopilotConfig, "autopilot configuration", structs.DefaultAutopilotConfig)
}
