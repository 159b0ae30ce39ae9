package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

func evalsSchema() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableEvals,
		Indexes: map[string]*memdb.IndexSchema{
			"id": {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "ID"}},
			"job": {Name: "job", Indexer: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
				&memdb.StringFieldIndex{Field: "Namespace"},
				&memdb.StringFieldIndex{Field: "JobID"},
			}}},
		},
	}
}

// UpsertEvals writes evaluations at index (new or updated).
func (s *StateStore) UpsertEvals(index uint64, evals []*structs.Evaluation) error {
	txn := s.writeTxn()
	defer txn.Abort()
	c := &changes{}
	if err := upsertEvalsTxn(txn, index, evals, c); err != nil {
		return err
	}
	return s.commit(txn, index, c)
}

func upsertEvalsTxn(txn *memdb.Txn, index uint64, evals []*structs.Evaluation, c *changes) error {
	if len(evals) == 0 {
		return nil
	}
	for _, e := range evals {
		existing, err := txn.First(tableEvals, "id", e.ID)
		if err != nil {
			return fmt.Errorf("looking up eval %q: %w", e.ID, err)
		}
		if existing != nil {
			e.CreateIndex = existing.(*structs.Evaluation).CreateIndex
		} else {
			e.CreateIndex = index
		}
		e.ModifyIndex = index
		if err := txn.Insert(tableEvals, e); err != nil {
			return fmt.Errorf("inserting eval %q: %w", e.ID, err)
		}
		if e.Status == structs.EvalStatusPending || e.Status == structs.EvalStatusBlocked {
			c.evals = append(c.evals, e)
		}
		c.touchJob(e.Namespace, e.JobID)
	}
	return setIndex(txn, tableEvals, index)
}

// DeleteEvals removes evaluations by ID at index; unknown IDs are ignored.
func (s *StateStore) DeleteEvals(index uint64, ids []string) error {
	txn := s.writeTxn()
	defer txn.Abort()
	c := &changes{}
	for _, id := range ids {
		raw, err := txn.First(tableEvals, "id", id)
		if err != nil {
			return fmt.Errorf("looking up eval %q: %w", id, err)
		}
		if raw == nil {
			continue
		}
		e := raw.(*structs.Evaluation)
		if err := txn.Delete(tableEvals, e); err != nil {
			return fmt.Errorf("deleting eval %q: %w", id, err)
		}
		c.touchJob(e.Namespace, e.JobID)
	}
	if err := setIndex(txn, tableEvals, index); err != nil {
		return err
	}
	return s.commit(txn, index, c)
}

// EvalByID returns the evaluation or nil.
func (r reader) EvalByID(ws memdb.WatchSet, id string) (*structs.Evaluation, error) {
	txn := r.db.Txn(false)
	ch, raw, err := txn.FirstWatch(tableEvals, "id", id)
	if err != nil {
		return nil, fmt.Errorf("looking up eval %q: %w", id, err)
	}
	ws.Add(ch)
	if raw == nil {
		return nil, nil
	}
	return raw.(*structs.Evaluation), nil
}

// EvalsByJob returns a job's evaluations.
func (r reader) EvalsByJob(ws memdb.WatchSet, namespace, jobID string) ([]*structs.Evaluation, error) {
	txn := r.db.Txn(false)
	return evalsByJobTxn(txn, ws, namespace, jobID)
}

func evalsByJobTxn(txn *memdb.Txn, ws memdb.WatchSet, namespace, jobID string) ([]*structs.Evaluation, error) {
	it, err := txn.Get(tableEvals, "job", namespace, jobID)
	if err != nil {
		return nil, fmt.Errorf("listing evals of job %q: %w", jobID, err)
	}
	ws.Add(it.WatchCh())
	var out []*structs.Evaluation
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*structs.Evaluation))
	}
	return out, nil
}

// Evals returns all evaluations ordered by ID.
func (r reader) Evals(ws memdb.WatchSet) ([]*structs.Evaluation, error) {
	txn := r.db.Txn(false)
	it, err := txn.Get(tableEvals, "id")
	if err != nil {
		return nil, fmt.Errorf("listing evals: %w", err)
	}
	ws.Add(it.WatchCh())
	var out []*structs.Evaluation
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*structs.Evaluation))
	}
	return out, nil
}
