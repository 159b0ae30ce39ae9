package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/nomadish/nomadish/structs"
)

// setJobStatuses recomputes the status of each job touched by a write and
// stores the jobs whose status changed (ModifyIndex = index).
func setJobStatuses(txn *memdb.Txn, index uint64, jobs map[structs.NamespacedID]struct{}) error {
	changed := false
	for key := range jobs {
		raw, err := txn.First(tableJobs, "id", key.Namespace, key.ID)
		if err != nil {
			return fmt.Errorf("looking up job %q: %w", key.ID, err)
		}
		if raw == nil {
			continue
		}
		job := raw.(*structs.Job)
		status, err := jobStatusTxn(txn, job)
		if err != nil {
			return err
		}
		if status == job.Status {
			continue
		}
		// Stored objects are shared with readers: replace, never mutate.
		// A shallow copy is enough, only top-level scalars change.
		cp := *job
		job = &cp
		job.Status = status
		job.ModifyIndex = index
		if err := txn.Insert(tableJobs, job); err != nil {
			return fmt.Errorf("updating status of job %q: %w", key.ID, err)
		}
		changed = true
	}
	if !changed {
		return nil
	}
	return setIndex(txn, tableJobs, index)
}

// jobStatusTxn is JobStatus of job in txn. A job with a non-terminal
// allocation is running whatever else it has, so that is looked for first,
// stopping at the first found: every client report on a job of 10,000
// running allocations listed all of them (and the job's evals) otherwise.
func jobStatusTxn(txn *memdb.Txn, job *structs.Job) (string, error) {
	it, err := txn.Get(tableAllocs, "job", job.Namespace, job.ID)
	if err != nil {
		return "", fmt.Errorf("listing allocs of job %q: %w", job.ID, err)
	}
	var allocs []*structs.Allocation
	for raw := it.Next(); raw != nil; raw = it.Next() {
		a := raw.(*structs.Allocation)
		if !a.TerminalStatus() {
			return structs.JobStatusRunning, nil
		}
		allocs = append(allocs, a)
	}
	evals, err := evalsByJobTxn(txn, nil, job.Namespace, job.ID)
	if err != nil {
		return "", err
	}
	return JobStatus(job, allocs, evals), nil
}

// JobStatus derives a job's status as Nomad does: running while any
// allocation is non-terminal; pending while any evaluation is; dead when
// the job is stopped or everything it had has finished (a batch job whose
// allocations all completed); pending otherwise (just registered). A system
// job is running until it is stopped.
func JobStatus(job *structs.Job, allocs []*structs.Allocation, evals []*structs.Evaluation) string {
	if (job.Type == structs.JobTypeSystem || job.IsParent()) && !job.Stop {
		return structs.JobStatusRunning // as in Nomad: it waits for nodes, or launches children
	}
	for _, a := range allocs {
		if !a.TerminalStatus() {
			return structs.JobStatusRunning
		}
	}
	for _, e := range evals {
		if !e.TerminalStatus() {
			return structs.JobStatusPending
		}
	}
	if job.Stop || len(allocs) > 0 || len(evals) > 0 {
		return structs.JobStatusDead
	}
	return structs.JobStatusPending
}
