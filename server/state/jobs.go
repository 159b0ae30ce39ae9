package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

func jobsSchema() *memdb.TableSchema {
	return &memdb.TableSchema{
		Name: tableJobs,
		Indexes: map[string]*memdb.IndexSchema{
			"id": {Name: "id", Unique: true, Indexer: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
				&memdb.StringFieldIndex{Field: "Namespace"},
				&memdb.StringFieldIndex{Field: "ID"},
			}}},
			// periodic: the active periodic parents, so the periodic
			// launcher reads (and watches) only them, not every job.
			"periodic": {Name: "periodic", Indexer: &memdb.ConditionalIndex{Conditional: func(obj any) (bool, error) {
				return obj.(*structs.Job).IsPeriodicActive(), nil
			}}},
		},
	}
}

// UpsertJob registers or updates a job at index, together with its eval (nil
// ok) in one transaction. It sets the job's CreateIndex, ModifyIndex and
// JobModifyIndex, and the eval's JobModifyIndex to index; the job's Status is
// derived from its allocations and evaluations. A new job in a namespace
// that does not exist (deleted after Job.Register checked it) is refused
// with a 400 and nothing is written.
func (s *StateStore) UpsertJob(index uint64, job *structs.Job, eval *structs.Evaluation) error {
	return s.UpsertJobWithSubmission(index, job, nil, eval) // job_submissions.go
}

// upsertJobAndEvalTxn is UpsertJob's work inside txn; it returns the
// changes to commit.
func upsertJobAndEvalTxn(txn *memdb.Txn, index uint64, job *structs.Job, eval *structs.Evaluation) (*changes, error) {
	if err := checkNewJobNamespaceTxn(txn, job); err != nil {
		return nil, err
	}
	c := &changes{event: structs.TypeJobRegistered}
	if job.Stop { // a stop (deregister without purge) stores the job stopped
		c.event = structs.TypeJobDeregistered
	}
	if err := upsertJobTxn(txn, index, job, c); err != nil {
		return nil, err
	}
	if eval != nil {
		eval.JobModifyIndex = index
		if err := upsertEvalsTxn(txn, index, []*structs.Evaluation{eval}, c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func upsertJobTxn(txn *memdb.Txn, index uint64, job *structs.Job, c *changes) error {
	existing, err := txn.First(tableJobs, "id", job.Namespace, job.ID)
	if err != nil {
		return fmt.Errorf("looking up job %q: %w", job.ID, err)
	}
	if existing != nil {
		job.CreateIndex = existing.(*structs.Job).CreateIndex
	} else {
		job.CreateIndex = index
	}
	job.ModifyIndex = index
	job.JobModifyIndex = index
	if job.Status == "" {
		job.Status = structs.JobStatusPending
	}
	if err := txn.Insert(tableJobs, job); err != nil {
		return fmt.Errorf("inserting job %q: %w", job.ID, err)
	}
	if job.Stop {
		c.stopped = append(c.stopped, job.NamespacedID())
	}
	c.touchJob(job.Namespace, job.ID)
	if err := upsertJobVersionTxn(txn, index, job); err != nil {
		return err
	}
	return setIndex(txn, tableJobs, index)
}

// DeleteJob purges a job at index, with its deregister eval (nil ok). Its
// allocations and evaluations stay (the scheduler stops the allocations).
// Deleting an unknown job is not an error.
func (s *StateStore) DeleteJob(index uint64, namespace, id string, eval *structs.Evaluation) error {
	txn := s.writeTxn()
	defer txn.Abort()
	c := &changes{event: structs.TypeJobDeregistered}
	n, err := txn.DeleteAll(tableJobs, "id", namespace, id)
	if err != nil {
		return fmt.Errorf("deleting job %q: %w", id, err)
	}
	if n > 0 {
		c.stopped = append(c.stopped, structs.NamespacedID{Namespace: namespace, ID: id})
		if err := deleteJobVersionsTxn(txn, index, namespace, id); err != nil {
			return err
		}
		if err := deletePeriodicLaunchTxn(txn, index, namespace, id); err != nil { // periodic_launch.go
			return err
		}
		if err := setIndex(txn, tableJobs, index); err != nil {
			return err
		}
	}
	if eval != nil {
		eval.JobModifyIndex = index
		if err := upsertEvalsTxn(txn, index, []*structs.Evaluation{eval}, c); err != nil {
			return err
		}
	}
	return s.commit(txn, index, c)
}

// JobByID returns the job or nil.
func (r reader) JobByID(ws memdb.WatchSet, namespace, id string) (*structs.Job, error) {
	txn := r.db.Txn(false)
	ch, raw, err := txn.FirstWatch(tableJobs, "id", namespace, id)
	if err != nil {
		return nil, fmt.Errorf("looking up job %q: %w", id, err)
	}
	ws.Add(ch)
	if raw == nil {
		return nil, nil
	}
	return raw.(*structs.Job), nil
}

// PeriodicJobs lists the active periodic parents of every namespace (see
// Job.IsPeriodicActive), adding a watch that fires only when one of them
// changes: a write to any other job leaves it alone.
func (r reader) PeriodicJobs(ws memdb.WatchSet) ([]*structs.Job, error) {
	it, err := r.db.Txn(false).Get(tableJobs, "periodic", true)
	if err != nil {
		return nil, fmt.Errorf("listing periodic jobs: %w", err)
	}
	ws.Add(it.WatchCh())
	var out []*structs.Job
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*structs.Job))
	}
	return out, nil
}

// Jobs returns all jobs of namespace ("" or "*" for all), ordered by
// namespace and ID.
func (r reader) Jobs(ws memdb.WatchSet, namespace string) ([]*structs.Job, error) {
	txn := r.db.Txn(false)
	var it memdb.ResultIterator
	var err error
	if namespace == "" || namespace == "*" {
		it, err = txn.Get(tableJobs, "id")
	} else {
		it, err = txn.Get(tableJobs, "id_prefix", namespace, "")
	}
	if err != nil {
		return nil, fmt.Errorf("listing jobs: %w", err)
	}
	ws.Add(it.WatchCh())
	var out []*structs.Job
	for raw := it.Next(); raw != nil; raw = it.Next() {
		j := raw.(*structs.Job)
		if namespace != "" && namespace != "*" && j.Namespace != namespace {
			continue
		}
		out = append(out, j)
	}
	return out, nil
}
