package state

import (
	"testing"
)

// TestPersistCoversEveryTable holds the snapshot contract: every table of
// the schema is persisted, under a record type that newRecord restores into
// that same table, and no two tables share a record type.
func TestPersistCoversEveryTable(t *testing.T) {
	persisted := map[string]recordType{}
	types := map[recordType]string{}
	for _, p := range persistedTables {
		if other, dup := types[p.t]; dup {
			t.Errorf("record type %d used by %s and %s", p.t, other, p.name)
		}
		types[p.t] = p.name
		persisted[p.name] = p.t
		if _, table, err := newRecord(p.t); err != nil || table != p.name {
			t.Errorf("record type %d restores into %q (%v), want %q", p.t, table, err, p.name)
		}
	}
	for _, name := range derivedTables {
		persisted[name] = 0
	}
	for name := range schema().Tables {
		if _, ok := persisted[name]; !ok {
			t.Errorf("table %q is not persisted in snapshots, nor derived", name)
		}
	}
	if len(persisted) != len(schema().Tables) {
		t.Errorf("persisted tables %v, schema has %d tables", persisted, len(schema().Tables))
	}
}
