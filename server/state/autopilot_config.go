package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// tableAutopilotConfig holds at most one row: the autopilot configuration.
const tableAutopilotConfig = "autopilot_config"

// recordAutopilotConfig is its record type in persisted snapshots.
const recordAutopilotConfig recordType = 120

// TableAutopilotConfig is the table name for Index, exported for endpoints.
const TableAutopilotConfig = tableAutopilotConfig

func autopilotConfigSchema() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableAutopilotConfig,
		Indexes: map[string]*memdb.IndexSchema{
			// A singleton: every row has the same (true) key.
			"id": {Name: "id", Unique: true, Indexer: &memdb.ConditionalIndex{
				Conditional: func(any) (bool, error) { return true, nil },
			}},
		},
	}
}

// AutopilotSetConfig writes the autopilot configuration at index. With cas,
// it writes only when the stored configuration's ModifyIndex equals
// cfg.ModifyIndex (0: nothing stored yet) and reports whether it wrote.
// The store sets CreateIndex and ModifyIndex.
func (s *StateStore) AutopilotSetConfig(index uint64, cfg *structs.AutopilotConfig, cas bool) (bool, error) {
	txn := s.db.Txn(true)
	defer txn.Abort()
	raw, err := txn.First(tableAutopilotConfig, "id")
	if err != nil {
		return false, fmt.Errorf("reading autopilot configuration: %w", err)
	}
	var old *structs.AutopilotConfig
	if raw != nil {
		old = raw.(*structs.AutopilotConfig)
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
	c.CreateIndex, c.ModifyIndex = index, index
	if old != nil {
		c.CreateIndex = old.CreateIndex
	}
	if err := txn.Insert(tableAutopilotConfig, c); err != nil {
		return false, fmt.Errorf("writing autopilot configuration: %w", err)
	}
	if err := setIndex(txn, tableAutopilotConfig, index); err != nil {
		return false, err
	}
	return true, s.commit(txn, index, &changes{})
}

// AutopilotConfig returns the stored autopilot configuration, or the
// default one (structs.DefaultAutopilotConfig, indexes 0) when none was
// written. The returned value is shared: read-only.
func (r reader) AutopilotConfig(ws memdb.WatchSet) (*structs.AutopilotConfig, error) {
	txn := r.db.Txn(false)
	ch, raw, err := txn.FirstWatch(tableAutopilotConfig, "id")
	if err != nil {
		return nil, fmt.Errorf("reading autopilot configuration: %w", err)
	}
	ws.Add(ch)
	if raw == nil {
		return structs.DefaultAutopilotConfig(), nil
	}
	return raw.(*structs.AutopilotConfig), nil
}
