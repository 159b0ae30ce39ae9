package state

import (
	"fmt"
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// tableVariables holds encrypted variables by (namespace, path); only
// ciphertext and key IDs are stored, never items in clear.
const tableVariables = "variables"

// TableVariables is the table name for Index and WatchTables.
const TableVariables = tableVariables

// recordVariable is its record type in persisted snapshots (90..94 are
// the variables' and keyring's).
const recordVariable recordType = 90

func variablesSchema() *memdb.TableSchema {
	return &memdb.TableSchema{Name: tableVariables, Indexes: map[string]*memdb.IndexSchema{
		"id": {Name: "id", Unique: true, Indexer: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
			&memdb.StringFieldIndex{Field: "Namespace"},
			&memdb.StringFieldIndex{Field: "Path"},
		}}},
	}}
}

// VarApply applies one variable write (a raft entry's) at index: the
// check-and-set and lock rules are decided here, in the one transaction
// that writes, so concurrent writers cannot both pass a check. A refused
// write (conflict) writes nothing and returns the stored variable.
func (s *StateStore) VarApply(index uint64, req *structs.VarApplyStateRequest) *structs.VarApplyStateResponse {
	if req == nil || req.Var == nil {
		return &structs.VarApplyStateResponse{Result: structs.VarOpResultError, Error: "variable write without a variable"}
	}
	txn := s.db.Txn(true)
	defer txn.Abort()
	raw, err := txn.First(tableVariables, "id", req.Var.Namespace, req.Var.Path)
	if err != nil {
		return errorResult(fmt.Errorf("reading variable %q: %w", req.Var.Path, err))
	}
	var old *structs.VariableEncrypted
	if raw != nil {
		old = raw.(*structs.VariableEncrypted)
	}
	next, ok := varTransition(index, req, old)
	if !ok {
		return &structs.VarApplyStateResponse{Result: structs.VarOpResultConflict, Conflict: old.Copy()}
	}
	if next == nil {
		if old != nil {
			if err := txn.Delete(tableVariables, old); err != nil {
				return errorResult(fmt.Errorf("deleting variable %q: %w", old.Path, err))
			}
		}
	} else if err := txn.Insert(tableVariables, next); err != nil {
		return errorResult(fmt.Errorf("writing variable %q: %w", next.Path, err))
	}
	if err := setIndex(txn, tableVariables, index); err != nil {
		return errorResult(err)
	}
	if err := s.commit(txn, index, &changes{}); err != nil {
		return errorResult(err)
	}
	return &structs.VarApplyStateResponse{Result: structs.VarOpResultOk, Written: next.Copy()}
}

func errorResult(err error) *structs.VarApplyStateResponse {
	return &structs.VarApplyStateResponse{Result: structs.VarOpResultError, Error: err.Error()}
}

// lockHeld reports whether v is locked at now (its TTL not run out).
func lockHeld(v *structs.VariableEncrypted, now int64) bool {
	return v != nil && v.Lock != nil && now < v.LockExpires
}

// lockBlocked reports whether a new holder must wait: the lock is held, or
// its TTL ran out less than LockDelay ago.
func lockBlocked(v *structs.VariableEncrypted, now int64) bool {
	return v != nil && v.Lock != nil && now < v.LockExpires+int64(v.Lock.LockDelay)
}

// varTransition is the pure rule of a write: the variable to store (nil:
// delete or nothing) or ok false for a conflict.
func varTransition(index uint64, req *structs.VarApplyStateRequest, old *structs.VariableEncrypted) (*structs.VariableEncrypted, bool) {
	in, now := req.Var, req.Now
	lockID := ""
	if in.Lock != nil {
		lockID = in.Lock.ID
	}
	// A held lock keeps every write but its holder's out (and acquire).
	if lockHeld(old, now) && old.Lock.ID != lockID && req.Op != structs.VarOpRekey {
		return nil, false
	}
	write := func() *structs.VariableEncrypted {
		v := in.Copy()
		v.CreateIndex, v.CreateTime = index, now
		v.Lock, v.LockExpires = nil, 0
		if old != nil {
			v.CreateIndex, v.CreateTime = old.CreateIndex, old.CreateTime
			if lockHeld(old, now) {
				v.Lock, v.LockExpires = old.Metadata().Lock, old.LockExpires
			}
		}
		v.ModifyIndex, v.ModifyTime = index, now
		return v
	}
	switch req.Op {
	case structs.VarOpSet:
		return write(), true
	case structs.VarOpCAS:
		if !casMatches(old, req.CheckIndex) {
			return nil, false
		}
		return write(), true
	case structs.VarOpDelete:
		return nil, true
	case structs.VarOpDeleteCAS:
		if !casMatches(old, req.CheckIndex) {
			return nil, false
		}
		return nil, true
	case structs.VarOpLockAcquire:
		if lockBlocked(old, now) || in.Lock == nil {
			return nil, false
		}
		v := write()
		if len(in.Data) == 0 && old != nil {
			v.VariableData = old.Copy().VariableData
		}
		v.Lock = &structs.VariableLock{ID: in.Lock.ID, TTL: in.Lock.TTL, LockDelay: in.Lock.LockDelay}
		v.LockExpires = now + int64(in.Lock.TTL)
		return v, true
	case structs.VarOpLockRenew:
		if !lockHeld(old, now) || old.Lock.ID != lockID {
			return nil, false
		}
		v := old.Copy()
		v.LockExpires = now + int64(v.Lock.TTL)
		return v, true
	case structs.VarOpLockRelease:
		if old == nil || old.Lock == nil || old.Lock.ID != lockID {
			return nil, false
		}
		v := old.Copy()
		v.Lock, v.LockExpires = nil, 0
		v.ModifyIndex, v.ModifyTime = index, now
		return v, true
	case structs.VarOpRekey:
		if old == nil || old.ModifyIndex != req.CheckIndex {
			return nil, false
		}
		v := old.Copy()
		v.VariableData = in.Copy().VariableData
		return v, true
	}
	return nil, false
}

// casMatches is Nomad's check-and-set rule: 0 means "must not exist",
// any other index must be the stored ModifyIndex.
func casMatches(old *structs.VariableEncrypted, check uint64) bool {
	if check == 0 {
		return old == nil
	}
	return old != nil && old.ModifyIndex == check
}

// VarGet returns the stored variable (shared: read-only) or nil.
func (r reader) VarGet(ws memdb.WatchSet, namespace, path string) (*structs.VariableEncrypted, error) {
	txn := r.db.Txn(false)
	ch, raw, err := txn.FirstWatch(tableVariables, "id", namespace, path)
	if err != nil {
		return nil, fmt.Errorf("reading variable %q: %w", path, err)
	}
	ws.Add(ch)
	if raw == nil {
		return nil, nil
	}
	return raw.(*structs.VariableEncrypted), nil
}

// VarsByPrefix lists the variables of namespace ("*": every one) whose
// path starts with prefix, sorted by namespace then path (shared:
// read-only).
func (r reader) VarsByPrefix(namespace, prefix string) ([]*structs.VariableEncrypted, error) {
	txn := r.db.Txn(false)
	var it memdb.ResultIterator
	var err error
	if namespace == structs.AllNamespaces {
		it, err = txn.Get(tableVariables, "id")
	} else {
		it, err = txn.Get(tableVariables, "id_prefix", namespace, prefix)
	}
	if err != nil {
		return nil, fmt.Errorf("listing variables: %w", err)
	}
	var out []*structs.VariableEncrypted
	for raw := it.Next(); raw != nil; raw = it.Next() {
		v := raw.(*structs.VariableEncrypted)
		if strings.HasPrefix(v.Path, prefix) {
			out = append(out, v)
		}
	}
	return out, nil
}
