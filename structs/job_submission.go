package structs

// DefaultJobMaxSourceSize bounds a job submission's Source (Nomad's
// job_max_source_size default "1M": 1,000,000 bytes). A bigger source is
// dropped with a warning; the job is registered all the same.
const DefaultJobMaxSourceSize = 1_000_000

// JobGetSubmissionRPC reads the source a job version was submitted as.
const JobGetSubmissionRPC = "Job.GetJobSubmission"

// JobSubmission is the source a job version was submitted as (Nomad >= 1.6,
// api.JobSubmission): the HCL or JSON text and the variables given with it.
// The server sets Namespace, JobID, Version and JobModifyIndex.
type JobSubmission struct {
	// Source is the job file's text as the user wrote it.
	Source string
	// Format is "hcl2" or "json" ("hcl1" from old Nomad clients).
	Format string
	// VariableFlags are the -var flags (hcl2 only).
	VariableFlags map[string]string
	// Variables is the var-files' content, concatenated (hcl2 only).
	Variables string

	Namespace      string
	JobID          string
	Version        uint64
	JobModifyIndex uint64
}

// Copy returns a deep copy (nil for nil).
func (s *JobSubmission) Copy() *JobSubmission {
	if s == nil {
		return nil
	}
	cp := *s
	if s.VariableFlags != nil {
		cp.VariableFlags = make(map[string]string, len(s.VariableFlags))
		for k, v := range s.VariableFlags {
			cp.VariableFlags[k] = v
		}
	}
	return &cp
}

// JobSubmissionRequest asks for the submission of one version of a job
// (Job.GetJobSubmission).
type JobSubmissionRequest struct {
	JobID   string
	Version uint64
	QueryOptions
}

// JobSubmissionResponse answers Job.GetJobSubmission; Submission is nil when
// the version has no stored source.
type JobSubmissionResponse struct {
	Submission *JobSubmission
	QueryMeta
}
