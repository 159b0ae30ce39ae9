package state

import (
	"fmt"
	"sort"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// tableJobVersions keeps past versions of every job, keyed (namespace, id,
// version); see upsertJobVersionTxn for what is kept.
const tableJobVersions = "job_version"

// TableJobVersions is the table name for blocking queries on job versions.
const TableJobVersions = tableJobVersions

// recordJobVersion is the persisted snapshot record of a job version. The
// number is taken well past the other record types so concurrent additions
// of new tables do not collide (record numbers are append-only, gaps are
// fine).
const recordJobVersion recordType = 14

func jobVersionsSchema() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableJobVersions,
		Indexes: map[string]*memdb.IndexSchema{
			"id": {Name: "id", Unique: true, Indexer: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
				&memdb.StringFieldIndex{Field: "Namespace"},
				&memdb.StringFieldIndex{Field: "ID"},
				&memdb.UintFieldIndex{Field: "Version"},
			}}},
		},
	}
}

// upsertJobVersionTxn stores job (already inserted in the jobs table, so
// immutable from now on) as its version: a write of the same version
// replaces it (status, stop flag). Past JobTrackedVersions, the oldest
// version is dropped (with its submission), except that the newest stable version is kept in
// place of the oldest unstable one (Nomad's rule).
func upsertJobVersionTxn(txn *memdb.Txn, index uint64, job *structs.Job) error {
	if err := txn.Insert(tableJobVersions, job); err != nil {
		return fmt.Errorf("inserting version %d of job %q: %w", job.Version, job.ID, err)
	}
	all, err := jobVersionsTxn(txn, nil, job.Namespace, job.ID)
	if err != nil {
		return err
	}
	if len(all) > structs.JobTrackedVersions {
		keep := structs.JobTrackedVersions
		stable := -1
		for i, j := range all {
			if j.Stable {
				stable = i
				break
			}
		}
		if stable == keep {
			all[keep-1], all[keep] = all[keep], all[keep-1]
		}
		for _, d := range all[keep:] {
			if err := txn.Delete(tableJobVersions, d); err != nil {
				return fmt.Errorf("deleting version %d of job %q: %w", d.Version, d.ID, err)
			}
			if err := deleteJobSubmissionTxn(txn, index, d.Namespace, d.ID, d.Version); err != nil { // job_submissions.go
				return err
			}
		}
	}
	return setIndex(txn, tableJobVersions, index)
}

// deleteJobVersionsTxn removes every version of a purged job, with their
// submissions.
func deleteJobVersionsTxn(txn *memdb.Txn, index uint64, namespace, id string) error {
	all, err := jobVersionsTxn(txn, nil, namespace, id)
	if err != nil {
		return err
	}
	for _, j := range all {
		if err := txn.Delete(tableJobVersions, j); err != nil {
			return fmt.Errorf("deleting version %d of job %q: %w", j.Version, id, err)
		}
		if err := deleteJobSubmissionTxn(txn, index, namespace, id, j.Version); err != nil {
			return err
		}
	}
	if len(all) == 0 {
		return nil
	}
	return setIndex(txn, tableJobVersions, index)
}

// jobVersionsTxn returns the job's versions, newest first.
func jobVersionsTxn(txn *memdb.Txn, ws memdb.WatchSet, namespace, id string) ([]*structs.Job, error) {
	it, err := txn.Get(tableJobVersions, "id_prefix", namespace, id)
	if err != nil {
		return nil, fmt.Errorf("listing versions of job %q: %w", id, err)
	}
	ws.Add(it.WatchCh())
	var out []*structs.Job
	for raw := it.Next(); raw != nil; raw = it.Next() {
		j := raw.(*structs.Job)
		// The prefix query also matches longer IDs ("web" finds "web2").
		if j.Namespace == namespace && j.ID == id {
			out = append(out, j)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Version > out[b].Version })
	return out, nil
}

// JobVersionsByID returns the kept versions of a job, newest first (nil
// when the job has none). The jobs are the stored objects: read-only.
func (r reader) JobVersionsByID(ws memdb.WatchSet, namespace, id string) ([]*structs.Job, error) {
	return jobVersionsTxn(r.db.Txn(false), ws, namespace, id)
}

// JobByIDAndVersion returns one kept version of a job, or nil.
func (r reader) JobByIDAndVersion(ws memdb.WatchSet, namespace, id string, version uint64) (*structs.Job, error) {
	txn := r.db.Txn(false)
	ch, raw, err := txn.FirstWatch(tableJobVersions, "id", namespace, id, version)
	if err != nil {
		return nil, fmt.Errorf("looking up version %d of job %q: %w", version, id, err)
	}
	ws.Add(ch)
	if raw == nil {
		return nil, nil
	}
	return raw.(*structs.Job), nil
}

// UpdateJobStability marks one version of a job stable (or not) at index;
// when it is the current version, the job itself is updated too. An
// unknown job or version is a *structs.CodedError 404.
func (s *StateStore) UpdateJobStability(index uint64, namespace, id string, version uint64, stable bool) error {
	txn := s.db.Txn(true)
	defer txn.Abort()
	raw, err := txn.First(tableJobVersions, "id", namespace, id, version)
	if err != nil {
		return fmt.Errorf("looking up version %d of job %q: %w", version, id, err)
	}
	if raw == nil {
		return structs.NewCodedError(structs.ErrCodeNotFound, "job %q has no version %d", id, version)
	}
	// Stored objects are shared with readers: replace, never mutate.
	cp := *raw.(*structs.Job)
	cp.Stable = stable
	if err := txn.Insert(tableJobVersions, &cp); err != nil {
		return fmt.Errorf("updating version %d of job %q: %w", version, id, err)
	}
	if err := setIndex(txn, tableJobVersions, index); err != nil {
		return err
	}
	cur, err := txn.First(tableJobs, "id", namespace, id)
	if err != nil {
		return fmt.Errorf("looking up job %q: %w", id, err)
	}
	if cur != nil && cur.(*structs.Job).Version == version {
		jc := *cur.(*structs.Job)
		jc.Stable = stable
		jc.ModifyIndex = index
		if err := txn.Insert(tableJobs, &jc); err != nil {
			return fmt.Errorf("updating job %q: %w", id, err)
		}
		if err := setIndex(txn, tableJobs, index); err != nil {
			return err
		}
	}
	txn.Commit()
	return nil
}
