package state

import (
	"testing"

	"github.com/nomadish/nomadish/structs"
)

// TestJobStatusTxnAgreesWithJobStatus: the early return on the first live
// allocation gives JobStatus's answer for every mix of allocations and
// evals, job types and stop flags.
func TestJobStatusTxnAgreesWithJobStatus(t *testing.T) {
	cases := []struct {
		name    string
		typ     string
		stop    bool
		clients []string // one allocation per client status
		eval    string   // "" for none
		want    string
	}{
		{"live and done", structs.JobTypeBatch, false, []string{"complete", "complete", "running", "complete"}, "complete", structs.JobStatusRunning},
		{"all done", structs.JobTypeBatch, false, []string{"complete", "failed"}, "complete", structs.JobStatusDead},
		{"pending eval", structs.JobTypeService, false, nil, "pending", structs.JobStatusPending},
		{"nothing yet", structs.JobTypeService, false, nil, "", structs.JobStatusPending},
		{"system", structs.JobTypeSystem, false, []string{"complete"}, "complete", structs.JobStatusRunning},
		{"stopped, live", structs.JobTypeService, true, []string{"running"}, "complete", structs.JobStatusRunning},
		{"stopped, none", structs.JobTypeService, true, nil, "", structs.JobStatusDead},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := testStore(t)
			job := testJob("j")
			job.Type, job.Stop = c.typ, c.stop
			var eval *structs.Evaluation
			if c.eval != "" {
				eval = testEval(job, c.eval)
			}
			if err := s.UpsertJob(10, job, eval); err != nil {
				t.Fatal(err)
			}
			var allocs []*structs.Allocation
			for _, cs := range c.clients {
				a := testAlloc(job, "n1", "e")
				a.ClientStatus = cs
				allocs = append(allocs, a)
			}
			if len(allocs) > 0 {
				if err := s.UpsertAllocs(11, allocs); err != nil {
					t.Fatal(err)
				}
			}
			txn := s.db.Txn(false)
			got, err := jobStatusTxn(txn, job)
			if err != nil {
				t.Fatal(err)
			}
			all, _ := allocsBy(txn, nil, "job", job.Namespace, job.ID)
			evals, _ := evalsByJobTxn(txn, nil, job.Namespace, job.ID)
			if want := JobStatus(job, all, evals); got != want || got != c.want {
				t.Fatalf("jobStatusTxn %q, JobStatus %q, want %q", got, want, c.want)
			}
		})
	}
}
