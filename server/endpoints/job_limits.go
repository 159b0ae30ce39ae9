package endpoints

import "github.com/nomadish/nomadish/structs"

// checkJobLimits refuses, with a 400 naming server { job_max_count }, a
// prepared job whose groups' counts sum to more than the server allows.
// Job.Register (and so Job.Scale and Job.Revert) and Job.Plan call it after
// prepareJob, before anything is written or planned.
func checkJobLimits(job *structs.Job, maxCount int) error {
	if err := job.ValidateCount(maxCount); err != nil {
		return structs.NewCodedError(structs.ErrCodeBadRequest, "invalid job: %v", err)
	}
	return nil
}
