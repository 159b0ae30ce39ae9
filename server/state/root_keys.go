package state

import (
	"fmt"
	"sort"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// tableRootKeys holds the root keys' metadata (the material stays on each
// server's disk: server/keyring).
const tableRootKeys = "root_keys"

// TableRootKeys is the table name for Index and WatchTables.
const TableRootKeys = tableRootKeys

// recordRootKeyMeta is its record type in persisted snapshots.
const recordRootKeyMeta recordType = 91

func rootKeysSchema() *memdb.TableSchema {
	return &memdb.TableSchema{Name: tableRootKeys, Indexes: map[string]*memdb.IndexSchema{
		"id": {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "KeyID"}},
	}}
}

// UpsertRootKeyMeta writes a key's metadata at index (CreateIndex kept on
// update); an active key makes every other one inactive.
func (s *StateStore) UpsertRootKeyMeta(index uint64, in *structs.RootKeyMeta) error {
	if in == nil {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "root key metadata missing")
	}
	txn := s.db.Txn(true)
	defer txn.Abort()
	m := *in
	m.CreateIndex, m.ModifyIndex = index, index
	raw, err := txn.First(tableRootKeys, "id", m.KeyID)
	if err != nil {
		return fmt.Errorf("reading root key %q: %w", m.KeyID, err)
	}
	if raw != nil {
		m.CreateIndex = raw.(*structs.RootKeyMeta).CreateIndex
	}
	if m.IsActive() {
		it, err := txn.Get(tableRootKeys, "id")
		if err != nil {
			return fmt.Errorf("listing root keys: %w", err)
		}
		var demote []*structs.RootKeyMeta
		for raw := it.Next(); raw != nil; raw = it.Next() {
			if k := raw.(*structs.RootKeyMeta); k.IsActive() && k.KeyID != m.KeyID {
				c := *k
				c.State, c.ModifyIndex = structs.RootKeyStateInactive, index
				demote = append(demote, &c)
			}
		}
		for _, k := range demote {
			if err := txn.Insert(tableRootKeys, k); err != nil {
				return fmt.Errorf("writing root key %q: %w", k.KeyID, err)
			}
		}
	}
	if err := txn.Insert(tableRootKeys, &m); err != nil {
		return fmt.Errorf("writing root key %q: %w", m.KeyID, err)
	}
	if err := setIndex(txn, tableRootKeys, index); err != nil {
		return err
	}
	return s.commit(txn, index, &changes{})
}

// RootKeyMetas lists every root key's metadata, the active key first,
// then newest first (shared: read-only).
func (r reader) RootKeyMetas(ws memdb.WatchSet) ([]*structs.RootKeyMeta, error) {
	txn := r.db.Txn(false)
	it, err := txn.Get(tableRootKeys, "id")
	if err != nil {
		return nil, fmt.Errorf("listing root keys: %w", err)
	}
	ws.Add(it.WatchCh())
	var out []*structs.RootKeyMeta
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*structs.RootKeyMeta))
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].IsActive() != out[j].IsActive() {
			return out[i].IsActive()
		}
		return out[i].CreateIndex > out[j].CreateIndex
	})
	return out, nil
}

// ActiveRootKeyMeta returns the active key's metadata, nil when none.
func (r reader) ActiveRootKeyMeta() (*structs.RootKeyMeta, error) {
	keys, err := r.RootKeyMetas(nil)
	if err != nil || len(keys) == 0 || !keys[0].IsActive() {
		return nil, err
	}
	return keys[0], nil
}
