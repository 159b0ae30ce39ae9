package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// tablePeriodicLaunch holds each periodic parent's last launch time, so a
// new leader resumes its launcher where the old one stopped.
const tablePeriodicLaunch = "periodic_launch"

// recordPeriodicLaunch is its record type in persisted snapshots.
const recordPeriodicLaunch recordType = 80

// TablePeriodicLaunch is the table name for Index and WatchTables.
const TablePeriodicLaunch = tablePeriodicLaunch

func periodicLaunchSchema() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tablePeriodicLaunch,
		Indexes: map[string]*memdb.IndexSchema{
			"id": {Name: "id", Unique: true, Indexer: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
				&memdb.StringFieldIndex{Field: "Namespace"},
				&memdb.StringFieldIndex{Field: "ID"},
			}}},
		},
	}
}

// UpsertPeriodicLaunch records a launch at index and, when child is not
// nil and does not exist yet, registers it with its eval in the same
// transaction. Registering an existing child is a no-op (a launch replayed
// by a new leader). A launch older than the recorded one is not recorded
// (the last launch only moves forward).
func (s *StateStore) UpsertPeriodicLaunch(index uint64, launch *structs.PeriodicLaunch, child *structs.Job, eval *structs.Evaluation) error {
	txn := s.writeTxn()
	defer txn.Abort()
	c := &changes{}
	if child != nil {
		existing, err := txn.First(tableJobs, "id", child.Namespace, child.ID)
		if err != nil {
			return fmt.Errorf("looking up job %q: %w", child.ID, err)
		}
		if existing == nil {
			if err := checkNewJobNamespaceTxn(txn, child); err != nil {
				return err
			}
			if err := upsertJobTxn(txn, index, child, c); err != nil {
				return err
			}
			if eval != nil {
				eval.JobModifyIndex = index
				if err := upsertEvalsTxn(txn, index, []*structs.Evaluation{eval}, c); err != nil {
					return err
				}
			}
			c.touchJob(child.Namespace, child.ParentID)
		}
	}
	if launch != nil {
		old, err := txn.First(tablePeriodicLaunch, "id", launch.Namespace, launch.ID)
		if err != nil {
			return fmt.Errorf("looking up periodic launch of %q: %w", launch.ID, err)
		}
		cp := *launch
		cp.CreateIndex, cp.ModifyIndex = index, index
		if old != nil {
			prev := old.(*structs.PeriodicLaunch)
			cp.CreateIndex = prev.CreateIndex
			if cp.Launch.Before(prev.Launch) {
				cp.Launch = prev.Launch
			}
		}
		if err := txn.Insert(tablePeriodicLaunch, &cp); err != nil {
			return fmt.Errorf("writing periodic launch of %q: %w", launch.ID, err)
		}
		if err := setIndex(txn, tablePeriodicLaunch, index); err != nil {
			return err
		}
	}
	return s.commit(txn, index, c)
}

// PeriodicLaunchByID returns a parent's last launch or nil.
func (r reader) PeriodicLaunchByID(ws memdb.WatchSet, namespace, id string) (*structs.PeriodicLaunch, error) {
	txn := r.db.Txn(false)
	ch, raw, err := txn.FirstWatch(tablePeriodicLaunch, "id", namespace, id)
	if err != nil {
		return nil, fmt.Errorf("looking up periodic launch of %q: %w", id, err)
	}
	ws.Add(ch)
	if raw == nil {
		return nil, nil
	}
	return raw.(*structs.PeriodicLaunch), nil
}

// JobChildren returns the jobs whose ParentID is parent, in namespace,
// ordered by ID (children's IDs start with the parent's and a "/").
func (r reader) JobChildren(ws memdb.WatchSet, namespace, parent string) ([]*structs.Job, error) {
	txn := r.db.Txn(false)
	it, err := txn.Get(tableJobs, "id_prefix", namespace, parent+"/")
	if err != nil {
		return nil, fmt.Errorf("listing children of job %q: %w", parent, err)
	}
	ws.Add(it.WatchCh())
	var out []*structs.Job
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if j := raw.(*structs.Job); j.ParentID == parent {
			out = append(out, j)
		}
	}
	return out, nil
}

// PeriodicLaunches lists every recorded launch, ordered by namespace and ID.
func (r reader) PeriodicLaunches(ws memdb.WatchSet) ([]*structs.PeriodicLaunch, error) {
	txn := r.db.Txn(false)
	it, err := txn.Get(tablePeriodicLaunch, "id")
	if err != nil {
		return nil, fmt.Errorf("listing periodic launches: %w", err)
	}
	ws.Add(it.WatchCh())
	var out []*structs.PeriodicLaunch
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*structs.PeriodicLaunch))
	}
	return out, nil
}

// deletePeriodicLaunchTxn drops a purged job's launch record.
func deletePeriodicLaunchTxn(txn *memdb.Txn, index uint64, namespace, id string) error {
	n, err := txn.DeleteAll(tablePeriodicLaunch, "id", namespace, id)
	if err != nil {
		return fmt.Errorf("deleting periodic launch of %q: %w", id, err)
	}
	if n == 0 {
		return nil
	}
	return setIndex(txn, tablePeriodicLaunch, index)
}
