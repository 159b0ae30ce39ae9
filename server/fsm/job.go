package fsm

import "github.com/nomadish/nomadish/structs"

func (f *FSM) applyJobRegister(buf []byte, index uint64) any {
	var req structs.JobRegisterRequest
	decode(buf, &req, index)
	if err := f.State().UpsertJobWithSubmission(index, req.Job, req.Submission, req.Eval); err != nil {
		f.logger.Error("applying job register", "job", req.Job.ID, "error", err)
		return err
	}
	return nil
}

// applyJobDeregister purges the job (Purge) or stores it stopped; the
// server put the stopped copy's flag in place before committing.
func (f *FSM) applyJobDeregister(buf []byte, index uint64) any {
	var req structs.JobDeregisterEntry
	decode(buf, &req, index)
	st := f.State()
	var err error
	if req.Purge || req.Job == nil {
		err = st.DeleteJob(index, req.Namespace, req.JobID, req.Eval)
	} else {
		req.Job.Stop = true
		err = st.UpsertJob(index, req.Job, req.Eval)
	}
	if err != nil {
		f.logger.Error("applying job deregister", "job", req.JobID, "error", err)
		return err
	}
	return nil
}

// applyJobStability is the FSM side of JobStabilityRequestType.
func (f *FSM) applyJobStability(buf []byte, index uint64) any {
	var req structs.JobStabilityRequest
	decode(buf, &req, index)
	if err := f.State().UpdateJobStability(index, req.Namespace, req.JobID, req.JobVersion, req.Stable); err != nil {
		f.logger.Error("applying job stability", "job", req.JobID, "version", req.JobVersion, "error", err)
		return err
	}
	return nil
}
