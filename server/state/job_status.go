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
		allocs, err := allocsBy(txn, nil, "job", key.Namespace, key.ID)
		if err != nil {
			return err
		}
		evals, err := evalsByJobTxn(txn, nil, key.Namespace, key.ID)
		if err != nil {
			return err
		}
		status := JobStatus(job, allocs, evals)
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
