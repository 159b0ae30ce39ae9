package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// tableJobSubmissions keeps the source each kept job version was submitted
// as, keyed (namespace, job ID, version). A row lives as long as its job
// version: it goes when the version is pruned (upsertJobVersionTxn) and
// when the job is purged or collected (deleteJobVersionsTxn).
const tableJobSubmissions = "job_submission"

// TableJobSubmissions is the table name for blocking queries.
const TableJobSubmissions = tableJobSubmissions

// recordJobSubmission is its record type in persisted snapshots.
const recordJobSubmission recordType = 130

func jobSubmissionsSchema() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableJobSubmissions,
		Indexes: map[string]*memdb.IndexSchema{
			"id": {Name: "id", Unique: true, Indexer: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
				&memdb.StringFieldIndex{Field: "Namespace"},
				&memdb.StringFieldIndex{Field: "JobID"},
				&memdb.UintFieldIndex{Field: "Version"},
			}}},
		},
	}
}

// UpsertJobWithSubmission is UpsertJob that also stores sub (nil: none) as
// the source of the job's version, in the same transaction: the job and
// its source commit together. The stored copy takes the job's namespace,
// ID, version and index.
func (s *StateStore) UpsertJobWithSubmission(index uint64, job *structs.Job, sub *structs.JobSubmission, eval *structs.Evaluation) error {
	txn := s.writeTxn()
	defer txn.Abort()
	c, err := upsertJobAndEvalTxn(txn, index, job, eval)
	if err != nil {
		return err
	}
	if sub != nil {
		cp := sub.Copy()
		cp.Namespace, cp.JobID, cp.Version, cp.JobModifyIndex = job.Namespace, job.ID, job.Version, index
		if err := txn.Insert(tableJobSubmissions, cp); err != nil {
			return fmt.Errorf("inserting the submission of job %q: %w", job.ID, err)
		}
		if err := setIndex(txn, tableJobSubmissions, index); err != nil {
			return err
		}
	}
	return s.commit(txn, index, c)
}

// deleteJobSubmissionTxn removes one version's submission, if any.
func deleteJobSubmissionTxn(txn *memdb.Txn, index uint64, namespace, id string, version uint64) error {
	n, err := txn.DeleteAll(tableJobSubmissions, "id", namespace, id, version)
	if err != nil {
		return fmt.Errorf("deleting the submission of version %d of job %q: %w", version, id, err)
	}
	if n == 0 {
		return nil
	}
	return setIndex(txn, tableJobSubmissions, index)
}

// JobSubmission returns the source version of the job was submitted as, or
// nil. The object is the stored one: read-only.
func (r reader) JobSubmission(ws memdb.WatchSet, namespace, id string, version uint64) (*structs.JobSubmission, error) {
	txn := r.db.Txn(false)
	ch, raw, err := txn.FirstWatch(tableJobSubmissions, "id", namespace, id, version)
	if err != nil {
		return nil, fmt.Errorf("looking up the submission of version %d of job %q: %w", version, id, err)
	}
	ws.Add(ch)
	if raw == nil {
		return nil, nil
	}
	return raw.(*structs.JobSubmission), nil
}
